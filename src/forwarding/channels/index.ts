// The suppliers' channels, by the name a supplier (and its dispatches) store: one adapter each (./channel.ts).
import type { Supplier } from "../../db/schema";
import type { Channel } from "./channel";
import { email } from "./email";
import { file } from "./file";
import { manual } from "./manual";
import { pull } from "./pull";
import { webhook } from "./webhook";

export type { Attempt, Channel, Mail, Outgoing } from "./channel";

export const CHANNELS: Record<Supplier["channel"], Channel> = { webhook, email, file, pull, manual };
