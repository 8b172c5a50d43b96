// The suppliers' channels, by the name a supplier (and its dispatches) store: one adapter each
// (./channel.ts), each its own description. Everything else asks this registry (the API's and the
// console's channel choice, a channel's settings and words), never a channel's name. A new channel
// is its adapter file and one line in BUILT_IN; an extension (a test's channel) registers itself.
import type { Channel as ChannelName, Supplier } from "../../db/schema";
import type { Channel } from "./channel";
import { email } from "./email";
import { file } from "./file";
import { manual } from "./manual";
import { pull } from "./pull";
import { webhook } from "./webhook";

export type { Attempt, Channel, Mail, Outgoing } from "./channel";
export type { ChannelName };

/** Every name the schema admits has its adapter: a name without one is a type error here. */
const BUILT_IN = { webhook, pull, email, manual, file } satisfies Record<ChannelName, Channel>;

/** The built-in adapters by name (what the registry starts with). */
export const CHANNELS: Readonly<Record<ChannelName, Channel>> = BUILT_IN;

const registry = new Map<string, Channel>(Object.values(BUILT_IN).map((c) => [c.name, c]));

/** The channel a supplier or dispatch names. Every stored name was checked against this registry when it was stored. */
export function channelFor(name: ChannelName): Channel {
  const channel = registry.get(name);
  if (!channel) throw new Error(`No channel adapter is registered for '${name}'`);
  return channel;
}

/** Whether a name is a registered channel's (the API's check of `channel`). */
export const isChannel = (name: unknown): name is ChannelName => typeof name === "string" && registry.has(name);

/** The channels in the order the console offers them. */
export const channels = (): Channel[] => [...registry.values()];

/** The names, in that order (the 422's allowed values). */
export const channelNames = (): ChannelName[] => channels().map((c) => c.name as ChannelName);

/** The channels whose dispatches start as `starts` (the push channels: "sending"). */
export const channelsStarting = (starts: Channel["starts"]): ChannelName[] => channels().filter((c) => c.starts === starts).map((c) => c.name as ChannelName);

/** What a supplier on this channel needs set: the issues, each with ":attribute" for the field. */
export function channelSettingsIssues(name: ChannelName, values: Record<string, unknown>): { path: string[]; message: string }[] {
  const channel = channelFor(name);
  const issues: { path: string[]; message: string }[] = [];
  for (const [key, schema] of Object.entries(channel.settings.shape)) {
    const value = values[key];
    if (value === undefined || value === null || value === "") {
      if (!schema.safeParse(undefined).success) issues.push({ path: [key], message: `The :attribute field is required when channel is ${name}.` });
      continue;
    }
    const result = schema.safeParse(value);
    if (!result.success) for (const issue of result.error.issues) issues.push({ path: [key], message: issue.message.includes(":attribute") ? issue.message : "The :attribute field is invalid." });
  }
  return issues;
}

/**
 * Adds a channel beside the built-in ones (an extension, a test's own channel): from then on the
 * API takes its name and settings, the console offers it and forwarding sends through it. Returns
 * what removes it again.
 */
export function registerChannel(channel: Channel): () => void {
  registry.set(channel.name, channel);
  // Undoes it (a test's channel must not outlive its file: test files share one Worker).
  return () => void (registry.get(channel.name) === channel && registry.delete(channel.name));
}

/** The channel of a supplier row (its stored name). */
export const supplierChannel = (supplier: Pick<Supplier, "channel">) => channelFor(supplier.channel);
