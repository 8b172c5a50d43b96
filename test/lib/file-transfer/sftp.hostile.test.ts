// The SFTP connector, inside workerd, against hostile "servers" (ssh-hostile.global.ts) that send
// what no real server sends: each ends in a FileTransferError in words, well within the session's
// time box, and the one that never finishes its greeting at the time box.
import { describe, expect, inject, it } from "vitest";
import { connectSftp } from "../../../src/lib/file-transfer/sftp";
import { FileTransferError } from "../../../src/lib/file-transfer/transfer";

const hostile = inject("sshHostile");
const TIME_BOX = 4000;

/** Connects to one hostile server; returns the FileTransferError and how long it took. */
async function connectTo(scenario: string, hostKeyFingerprint = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA") {
  const started = Date.now();
  try {
    await connectSftp({ protocol: "sftp", host: hostile.host, port: hostile.ports[scenario], username: "user", password: "secret", hostKeyFingerprint, timeoutMs: TIME_BOX });
  } catch (error) {
    if (!(error instanceof FileTransferError)) throw error;
    return { kind: error.kind, message: error.message, unclear: error.unclear, ms: Date.now() - started };
  }
  throw new Error(`connecting to the ${scenario} server succeeded`);
}

const where = (scenario: string) => `${hostile.host}:${hostile.ports[scenario]}`;

describe("SFTP against hostile servers: a clear error, never a hang or a crash", () => {
  it.each([
    ["a 100 KB version line without an end", "overlongBanner", (w: string, port: number) => `${w} is not an SSH server (it said "SSH-2.0-${"x".repeat(72)}"): is ${port} its SFTP port?`],
    ["2,000 lines before any version line", "endlessPreBanner", (w: string, port: number) => `${w} is not an SSH server (it said "Welcome to our server"): is ${port} its SFTP port?`],
    ["SSH 1", "sshOne", (w: string) => `${w} speaks "SSH-1.5-Hostile", not SSH 2`],
    ["a packet length of 0", "zeroLength", (w: string) => `${w} sent a malformed packet (its length is 0 bytes, too short for a message) (exchanging keys)`],
    ["a packet length of 2^32-1", "hugeLength", (w: string) => `${w} sent a malformed packet (its length is 4294967295 bytes, more than the 524288 we accept) (exchanging keys)`],
    ["padding longer than the packet", "paddingPastPacket", (w: string) => `${w} sent a malformed packet (200 bytes of padding in a packet of 12) (exchanging keys)`],
    ["a key exchange offer whose name list runs past its end", "truncatedKexInit", (w: string) => `${w} sent a key exchange offer that cannot be read (a message from the server ended early)`],
    [
      "20,000 key exchange names, none ours",
      "hugeNameList",
      (w: string) =>
        `${w} supports no key exchange we do (it offers ${Array.from({ length: 12 }, (_, i) => `kex-${i}@hostile`).join(", ")} and 19988 more; we offer curve25519-sha256, curve25519-sha256@libssh.org, ecdh-sha2-nistp256)`,
    ],
    ["a key exchange reply whose host key runs past its end", "hostKeyPastReply", (w: string) => `${w}: a message from the server ended early (exchanging keys)`],
    ["a 100 KB disconnect reason of control characters", "longDisconnect", (w: string) => `${w} ended the connection: ${"?".repeat(197)}... (exchanging keys)`],
  ])("%s", async (_, scenario, message) => {
    const result = await connectTo(scenario);
    expect(result).toMatchObject({ kind: "protocol", message: message(where(scenario), hostile.ports[scenario]), unclear: false });
    expect(result.ms).toBeLessThan(TIME_BOX);
  });

  it("a pinned host key whose signature of the key exchange is wrong is refused before authenticating", async () => {
    const result = await connectTo("badSignature", hostile.badSignatureFingerprint);
    expect(result).toMatchObject({
      kind: "host_key_mismatch",
      message: `${where("badSignature")} showed the pinned host key ${hostile.badSignatureFingerprint} but could not prove it holds it (bad signature): refused before authenticating`,
    });
    expect(result.ms).toBeLessThan(TIME_BOX);
  });

  it("a real server's packet with one bit flipped in transit after the key exchange is refused by its MAC", async () => {
    const sftp = inject("sftp");
    const started = Date.now();
    const error = await connectSftp({ protocol: "sftp", host: sftp.host, port: sftp.tamperPort, username: sftp.username, password: sftp.password, hostKeyFingerprint: sftp.hostKeyFingerprint, timeoutMs: TIME_BOX }).then(
      () => new Error("connected through a relay that tampers with the stream"),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FileTransferError);
    expect(error).toMatchObject({ kind: "protocol", message: `${sftp.host}:${sftp.tamperPort} sent a packet whose MAC is wrong (corrupted or tampered with) (authenticating)`, unclear: false });
    expect(Date.now() - started).toBeLessThan(TIME_BOX);
  });

  it("a version line that never ends is given up at the time box", async () => {
    const result = await connectTo("bannerWithoutEnd");
    expect(result).toMatchObject({ kind: "timeout", message: `${where("bannerWithoutEnd")} did not answer within the session's ${TIME_BOX} ms (waiting for the SSH greeting)` });
    expect(result.ms).toBeGreaterThanOrEqual(TIME_BOX - 100);
    expect(result.ms).toBeLessThan(TIME_BOX + 3000);
  });
});

describe("SFTP replies from a hostile server (a real SSH session, then malformed SFTP): a clear error, and the session ended", () => {
  const open = (scenario: string) =>
    connectSftp({
      protocol: "sftp",
      host: hostile.host,
      port: hostile.sftpPorts[scenario],
      username: "user",
      password: "secret",
      hostKeyFingerprint: hostile.sftpFingerprints[scenario],
      timeoutMs: TIME_BOX,
    });
  const failureOf = async (work: () => Promise<unknown>) => {
    const started = Date.now();
    try {
      await work();
    } catch (error) {
      if (!(error instanceof FileTransferError)) throw error;
      return { kind: error.kind, message: error.message, unclear: error.unclear, ms: Date.now() - started };
    }
    throw new Error("expected a FileTransferError");
  };
  const sftpWhere = (scenario: string) => `${hostile.host}:${hostile.sftpPorts[scenario]}`;

  it("a listing (NAME) whose count of 2^32-1 runs past its data", async () => {
    const session = await open("nameCountPastData");
    try {
      const result = await failureOf(() => session.list("inbox"));
      expect(result).toMatchObject({
        kind: "protocol",
        message: `${sftpWhere("nameCountPastData")} sent an answer to listing inbox that cannot be read (a count of 4294967295 names in 33 bytes); the session is ended`,
        unclear: false,
      });
      expect(result.ms).toBeLessThan(TIME_BOX);
      // Nothing more is asked of that server.
      expect(await failureOf(() => session.stat("inbox/a.csv"))).toMatchObject({ kind: "protocol", message: result.message, unclear: false });
    } finally {
      await session.close();
    }
  });

  it("a STATUS whose message runs past its packet", async () => {
    const session = await open("statusPastData");
    try {
      expect(await failureOf(() => session.remove("outbox/a.csv"))).toMatchObject({
        kind: "protocol",
        message: `${sftpWhere("statusPastData")} sent an answer to removing outbox/a.csv that cannot be read (a message from the server ended early); the session is ended`,
      });
    } finally {
      await session.close();
    }
  });

  it("an SFTP packet length of 2^32-1: the request may or may not have happened", async () => {
    const session = await open("hugeSftpPacket");
    try {
      expect(await failureOf(() => session.remove("outbox/a.csv"))).toMatchObject({
        kind: "protocol",
        message: `${sftpWhere("hugeSftpPacket")} sent an SFTP packet of 4294967295 bytes (at most 1048576 are expected); removing outbox/a.csv may or may not have happened`,
        unclear: true,
      });
    } finally {
      await session.close();
    }
  });

  it("a VERSION without its version number", async () => {
    expect(await failureOf(() => open("versionCutShort"))).toMatchObject({
      kind: "protocol",
      message: `${sftpWhere("versionCutShort")} sent an answer to starting SFTP that cannot be read (a message from the server ended early); the session is ended`,
    });
  });
});

