// What the SFTP connector reads from a server (draft-ietf-secsh-filexfer-02): the packets in the
// channel's byte stream, and the replies' fields (attributes, STATUS, NAME, VERSION). Functions of
// their own so that each can be tried with hostile input (test/lib/file-transfer/ssh-parsers.fuzz.test.ts);
// each returns data or throws an SshProtocolError saying what was wrong, which sftp.ts puts in words
// with the operation it was answering.
import { concat, Reader, SshProtocolError } from "./ssh-wire";

/** Our reads ask for 32 KiB; a listing packet may be larger, but not this large. */
export const MAX_SFTP_PACKET = 1024 * 1024;

const ATTR = { SIZE: 0x1, UIDGID: 0x2, PERMISSIONS: 0x4, ACMODTIME: 0x8, EXTENDED: 0x80000000 } as const;

export type Attrs = { size: number | null; mtime: number | null; permissions: number | null };
export type NameEntry = { name: string; attrs: Attrs };
export type SftpPacket = Reader & { type: number };

/**
 * Splits the channel's byte stream into SFTP packets (uint32 length, then the packet). Holds at most
 * one packet's bytes: a length over MAX_SFTP_PACKET, or of 0 (no packet type), is refused as soon
 * as its four bytes are in, before waiting for the rest.
 */
export class SftpFramer {
  private incoming: Uint8Array = new Uint8Array(0);

  push(data: Uint8Array): SftpPacket[] {
    this.incoming = this.incoming.length ? concat([this.incoming, data]) : data;
    const packets: SftpPacket[] = [];
    while (this.incoming.length >= 4) {
      const length = new Reader(this.incoming).u32();
      if (length > MAX_SFTP_PACKET) throw new SshProtocolError(`sent an SFTP packet of ${length} bytes (at most ${MAX_SFTP_PACKET} are expected)`);
      if (length === 0) throw new SshProtocolError("sent an empty SFTP packet");
      if (this.incoming.length < 4 + length) break;
      const packet = this.incoming.subarray(4, 4 + length);
      this.incoming = this.incoming.subarray(4 + length);
      const r = Object.assign(new Reader(packet), { type: packet[0] });
      r.byte();
      packets.push(r);
    }
    return packets;
  }
}

/** A file's attributes (filexfer-02 §5); only the fields we use are kept, the rest are stepped over. */
export function readAttrs(r: Reader): Attrs {
  const flags = r.u32();
  const size = flags & ATTR.SIZE ? r.u64() : null;
  if (flags & ATTR.UIDGID) r.u32(), r.u32();
  const permissions = flags & ATTR.PERMISSIONS ? r.u32() : null;
  let mtime: number | null = null;
  if (flags & ATTR.ACMODTIME) r.u32(), (mtime = r.u32());
  // Each extended pair is at least 8 bytes: a count past the packet ends at its end, not later.
  if (flags & ATTR.EXTENDED) for (let n = r.u32(); n > 0; n--) r.bytesField(), r.bytesField();
  return { size, mtime, permissions };
}

/** A STATUS reply after its id (filexfer-02 §7): the code and the server's message (optional in v3). */
export function readStatus(r: Reader): { code: number; message: string } {
  const code = r.u32();
  return { code, message: r.remaining >= 4 ? r.text() : "" };
}

/** A NAME reply after its id (filexfer-02 §7): its entries; a count larger than the packet holds is an error. */
export function readNames(r: Reader): NameEntry[] {
  const count = r.u32();
  // Each entry is at least 12 bytes (two empty strings and the attribute flags).
  if (count > r.remaining / 12) throw new SshProtocolError(`a count of ${count} names in ${r.remaining} bytes`);
  const entries: NameEntry[] = [];
  for (let n = 0; n < count; n++) {
    const name = r.text();
    r.bytesField(); // the `ls -l` line
    entries.push({ name, attrs: readAttrs(r) });
  }
  return entries;
}

/** The VERSION reply (filexfer-02 §4): the version and the extensions' names. */
export function readVersion(r: Reader): { version: number; extensions: string[] } {
  const version = r.u32();
  const extensions: string[] = [];
  while (r.remaining > 0) {
    extensions.push(r.text());
    r.bytesField();
  }
  return { version, extensions };
}
