// The outbound address policy (src/lib/outbound-address.ts): the tricky forms, and properties
// checked against the runtime's own URL parser (WHATWG), which every http(s) fetch goes through.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyHost, hostRefusal, parseIPv4, peerRefusal, type AddressKind } from "../../src/lib/outbound-address";
import { SEED } from "../helpers/fuzz";

const STRICT = { allowPrivate: false };
const PRIVATE_OK = { allowPrivate: true };

const kindOf = (host: string) => {
  const c = classifyHost(host);
  return c.type === "invalid" ? "invalid" : c.kind;
};

// [host as a user may type it, what it is]
const TABLE: [string, AddressKind | "invalid"][] = [
  // the cloud metadata address, in every IPv4 form
  ["169.254.169.254", "metadata"],
  ["2852039166", "metadata"],
  ["0251.0376.0251.0376", "metadata"],
  ["0xa9fea9fe", "metadata"],
  ["0xA9.0xFE.0xA9.0xFE", "metadata"],
  ["169.254.43518", "metadata"],
  ["169.16689662", "metadata"],
  ["0251.254.169.0376", "metadata"],
  ["169.254.169.254.", "metadata"],
  ["[::ffff:169.254.169.254]", "metadata"],
  ["::ffff:a9fe:a9fe", "metadata"],
  ["::169.254.169.254", "metadata"],
  ["64:ff9b::a9fe:a9fe", "metadata"],
  ["2002:a9fe:a9fe::1", "metadata"],
  ["fd00:ec2::254", "metadata"],
  ["100.100.100.200", "metadata"],
  ["metadata.google.internal", "metadata"],
  ["METADATA.GOOGLE.INTERNAL.", "metadata"],
  // link-local
  ["169.254.1.1", "link_local"],
  ["fe80::1", "link_local"],
  ["[FE80::abcd]", "link_local"],
  ["febf::1", "link_local"],
  // loopback
  ["127.0.0.1", "loopback"],
  ["127.1", "loopback"],
  ["0x7f.1", "loopback"],
  ["2130706433", "loopback"],
  ["017700000001", "loopback"],
  ["127.255.255.254", "loopback"],
  ["::1", "loopback"],
  ["[0:0:0:0:0:0:0:1]", "loopback"],
  ["::ffff:127.0.0.1", "loopback"],
  ["localhost", "loopback"],
  ["LocalHost.", "loopback"],
  ["shop.localhost", "loopback"],
  // private
  ["10.0.0.1", "private"],
  ["10.1", "private"],
  ["167772161", "private"],
  ["012.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["100.64.0.1", "private"],
  ["100.127.255.255", "private"],
  ["fc00::1", "private"],
  ["fd12:3456:789a::1", "private"],
  ["fec0::1", "private"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:c0a8:101", "private"],
  ["64:ff9b::10.0.0.1", "private"],
  ["64:ff9b:1::1", "private"],
  ["2002:c0a8:0101::1", "private"],
  ["nas.local", "private"],
  ["printer.home.arpa", "private"],
  ["db.corp.internal", "private"],
  // unspecified
  ["0.0.0.0", "unspecified"],
  ["0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["::", "unspecified"],
  ["[::]", "unspecified"],
  ["::ffff:0.0.0.0", "unspecified"],
  // other reserved
  ["255.255.255.255", "reserved"],
  ["4294967295", "reserved"],
  ["224.0.0.1", "reserved"],
  ["240.0.0.1", "reserved"],
  ["192.0.0.1", "reserved"],
  ["192.0.2.1", "reserved"],
  ["198.18.0.1", "reserved"],
  ["198.19.255.255", "reserved"],
  ["198.51.100.7", "reserved"],
  ["203.0.113.9", "reserved"],
  ["192.88.99.1", "reserved"],
  ["ff02::1", "reserved"],
  ["2001:db8::1", "reserved"],
  ["3fff::1", "reserved"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
  ["100::1", "reserved"],
  ["::8.8.8.8", "reserved"],
  ["2002:7f00:1::1", "reserved"],
  ["::2", "unspecified"], // IPv4-compatible 0.0.0.2,
  ["4000::1", "reserved"],
  // public
  ["8.8.8.8", "public"],
  ["134744072", "public"],
  ["1.1.1.1", "public"],
  ["172.15.255.255", "public"],
  ["172.32.0.0", "public"],
  ["100.63.255.255", "public"],
  ["100.128.0.0", "public"],
  ["169.253.255.255", "public"],
  ["198.20.0.0", "public"],
  ["223.255.255.255", "public"],
  ["2606:4700:4700::1111", "public"],
  ["[2a00:1450:4001:80b::200e]", "public"],
  ["::ffff:8.8.8.8", "public"],
  ["64:ff9b::8.8.8.8", "public"],
  ["2002:808:808::1", "public"],
  ["shop.example.com", "public"],
  ["xn--bcher-kva.example", "public"],
  ["ftp", "public"],
  // not a host at all: a name ending in a number must be an IPv4 address
  ["1.2.3.256", "invalid"],
  ["256.1.1.1", "invalid"],
  ["1.2.3.4.5", "invalid"],
  ["4294967296", "invalid"],
  ["0x100000000", "invalid"],
  ["08.1.1.1", "invalid"],
  ["0x1g.1.1.1", "invalid"],
  ["example.123", "invalid"],
  ["fe80::1%eth0", "invalid"],
  ["1::2::3", "invalid"],
  ["1:2:3:4:5:6:7:8:9", "invalid"],
  ["::ffff:1.2.3", "invalid"],
  ["bad host", "invalid"],
  ["-leading.example", "invalid"],
  ["", "invalid"],
];

describe("outbound addresses: the tricky forms", () => {
  it.each(TABLE)("%s is %s", (host, kind) => {
    expect(kindOf(host)).toBe(kind);
  });

  it("says what a numeric form is in words", () => {
    expect(hostRefusal("2852039166", STRICT)).toBe("points to 2852039166 (that is 169.254.169.254), a cloud metadata address, which is never reached");
    expect(hostRefusal("169.254.169.254", STRICT)).toBe("points to 169.254.169.254, a cloud metadata address, which is never reached");
    expect(hostRefusal("10.0.0.1", STRICT)).toBe(
      "points to 10.0.0.1, a private network address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7, fec0::/10, or a name only a private network resolves), reached only where the operator set ALLOW_PRIVATE_NETWORKS",
    );
    expect(hostRefusal("0.0.0.0", STRICT)).toBe("points to 0.0.0.0, an unspecified address (0.0.0.0/8, ::), which is never reached");
  });

  it("allows private networks only by the setting, and never metadata, link-local, unspecified or reserved", () => {
    for (const [host, kind] of TABLE) {
      if (kind === "invalid") continue;
      const allowedStrict = kind === "public" || kind === "loopback";
      expect(hostRefusal(host, STRICT) === null, `${host} strict`).toBe(allowedStrict);
      expect(hostRefusal(host, PRIVATE_OK) === null, `${host} with private networks`).toBe(allowedStrict || kind === "private");
    }
  });

  it("judges a socket's reported peer, with or without its port", () => {
    expect(peerRefusal({ remoteAddress: "127.0.0.1:2121" }, STRICT)).toBeNull();
    expect(peerRefusal({ remoteAddress: "localhost:2121" }, STRICT)).toBeNull();
    expect(peerRefusal({ remoteAddress: "[::1]:22" }, STRICT)).toBeNull();
    expect(peerRefusal({ remoteAddress: "169.254.169.254:21" }, STRICT)).toMatch(/^points to 169\.254\.169\.254, a cloud metadata address/);
    expect(peerRefusal({ remoteAddress: "[fe80::1]:22" }, STRICT)).toMatch(/link-local/);
    expect(peerRefusal({ remoteAddress: "10.0.0.5:22" }, PRIVATE_OK)).toBeNull();
    expect(peerRefusal({}, STRICT)).toBeNull();
  });
});

// ---- Properties, against the runtime's URL parser ------------------------------------------

const byte = fc.integer({ min: 0, max: 255 });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
/** A number written in one of the radixes inet_aton and WHATWG take. */
const written = (n: number) =>
  fc.constantFrom("dec", "oct", "hex", "HEX").map((radix) => (radix === "dec" ? String(n) : radix === "oct" ? `0${n.toString(8)}` : radix === "hex" ? `0x${n.toString(16)}` : `0X${n.toString(16).toUpperCase()}`));

/** An IPv4 address and one way to write it: 1 to 4 parts, each in any radix, maybe a trailing dot. */
const ipv4Form = u32.chain((value) =>
  fc.integer({ min: 1, max: 4 }).chain((parts) => {
    const octets = [24, 16, 8, 0].map((s) => Math.floor(value / 2 ** s) % 256);
    const head = octets.slice(0, parts - 1);
    const rest = octets.slice(parts - 1).reduce((acc, o) => acc * 256 + o, 0);
    return fc.tuple(fc.tuple(...[...head, rest].map(written)), fc.boolean()).map(([texts, dot]) => ({ value, text: texts.join(".") + (dot ? "." : "") }));
  }),
);

const group = fc.integer({ min: 0, max: 0xffff });
const ipv6Groups = fc.oneof(
  fc.array(group, { minLength: 8, maxLength: 8 }),
  // addresses with IPv4 inside, where the classification looks through
  fc.tuple(fc.constantFrom([0, 0, 0, 0, 0, 0xffff], [0, 0, 0, 0, 0, 0], [0x64, 0xff9b, 0, 0, 0, 0]), byte, byte, byte, byte).map(([p, a, b, c, d]) => [...p, a * 256 + b, c * 256 + d]),
  fc.tuple(fc.constantFrom(0xfe80, 0xfc00, 0xfd00, 0xff02, 0x2002, 0x2001), fc.array(group, { minLength: 7, maxLength: 7 })).map(([first, rest]) => [first, ...rest]),
);
/** One of the ways to write the groups: full, with its first run of zeros as "::", upper case. */
const ipv6Text = (groups: number[]) =>
  fc.tuple(fc.boolean(), fc.boolean()).map(([compress, upper]) => {
    const hex = groups.map((g) => g.toString(16));
    let text = hex.join(":");
    const start = groups.indexOf(0);
    if (compress && start >= 0) {
      let end = start;
      while (end < 8 && groups[end] === 0) end++;
      text = `${hex.slice(0, start).join(":")}::${hex.slice(end).join(":")}`;
    }
    return upper ? text.toUpperCase() : text;
  });

/** What the runtime's URL parser makes of a host: null when it refuses it. */
function whatwgHost(host: string): string | null {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return null;
  }
}

describe("outbound addresses: properties", () => {
  it("reads every IPv4 form as the URL parser does, and classifies the address, not its spelling", async () => {
    await fc.assert(
      fc.property(ipv4Form, ({ value, text }) => {
        expect(parseIPv4(text)).toBe(value);
        const canonical = [24, 16, 8, 0].map((s) => Math.floor(value / 2 ** s) % 256).join(".");
        expect(whatwgHost(text)).toBe(canonical);
        const judged = classifyHost(text);
        expect(judged.type === "ip" && judged.address).toBe(canonical);
        expect(kindOf(text)).toBe(kindOf(canonical));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it("reads IPv6 as the URL parser does; IPv4-mapped addresses are their IPv4", async () => {
    await fc.assert(
      fc.property(ipv6Groups.chain((g) => ipv6Text(g).map((text) => ({ g, text }))), ({ g, text }) => {
        const judged = classifyHost(text);
        expect(judged.type).toBe("ip");
        const ours = new URL(`http://${judged.type === "ip" ? judged.address : ""}/`).hostname;
        expect(whatwgHost(`[${text}]`)).toBe(ours);
        if (g.slice(0, 6).join() === "0,0,0,0,0,65535") expect(kindOf(text)).toBe(kindOf(`${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it("never calls a host public or loopback that the URL parser puts elsewhere, whatever is typed", async () => {
    const chars = fc.constantFrom(..."0123456789abcdefx.:[]X".split(""));
    await fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 24 }), (typed) => {
        const judged = classifyHost(typed);
        const parsed = whatwgHost(typed);
        if (judged.type === "invalid" || parsed === null) return;
        // Whatever we accept, the URL parser reads as the same address (or the same name).
        if (judged.type === "ip") expect(classifyHost(parsed)).toEqual(judged);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it("allows nothing but public and loopback without the setting, for any IPv4 or IPv6 address", async () => {
    await fc.assert(
      fc.property(fc.oneof(u32.map((v) => [24, 16, 8, 0].map((s) => Math.floor(v / 2 ** s) % 256).join(".")), ipv6Groups.map((g) => g.map((x) => x.toString(16)).join(":"))), (host) => {
        const kind = kindOf(host);
        expect(hostRefusal(host, STRICT) === null).toBe(kind === "public" || kind === "loopback");
        expect(hostRefusal(host, PRIVATE_OK) === null).toBe(kind === "public" || kind === "loopback" || kind === "private");
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
