// A hostile FTP server on loopback, for what no real server can be made to do
// (test/lib/file-transfer/ftp.hostile.test.ts): replies that are not FTP, that never end, that
// come a byte at a time, passive addresses naming another host. The test scripts the next control
// connection first: one line of JSON (a HostileScript, test/provided-context.d.ts) to `scriptPort`,
// answered `ok`. The server then greets, answers the commands the script names with the script's
// bytes (latin1, so any byte can be sent) and the rest as a plain server would, and serves a
// listing on a passive data connection.
//
// The data connection: for each EPSV or PASV a listener on 127.0.0.1 at a fresh port, and beside it
// a trap on 127.0.0.2 at the same port. A PASV answer may name any address (`pasvHost`); a client
// that connected to that address rather than to the control connection's host would reach the trap
// (for 127.0.0.2), which serves a listing of its own, or nothing at all (for 10.0.0.1 or
// 169.254.169.254, never answered on this machine).
import net from "node:net";
import type { TestProject } from "vitest/node";

type HostileScript = {
  greeting?: string;
  replies?: Record<string, string>;
  trickle?: boolean;
  closeAfter?: string;
  pasvHost?: string;
  listing?: string;
};

const TRAP_HOST = "127.0.0.2";

export default async function setup(project: TestProject) {
  const sockets = new Set<net.Socket>();
  const servers = new Set<net.Server>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  };
  let next: HostileScript = {};
  const trapped: string[] = [];

  const scripts = net.createServer((socket) => {
    track(socket);
    let text = "";
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const end = text.indexOf("\n");
      if (end < 0) return;
      const line = text.slice(0, end);
      if (line === "TRAPPED") socket.end(`${JSON.stringify(trapped.splice(0))}\n`);
      else {
        next = JSON.parse(line) as HostileScript;
        socket.end("ok\n");
      }
    });
  });

  /** A listener at `host`:`port` (0: any free one) that serves `body` to the first connection. */
  const serve = (host: string, port: number, body: () => string, onConnect: () => void) =>
    new Promise<net.Server>((resolve, reject) => {
      const server = net.createServer((socket) => {
        track(socket);
        onConnect();
        socket.end(Buffer.from(body(), "latin1"));
        server.close();
        servers.delete(server);
      });
      servers.add(server);
      server.once("error", reject);
      server.listen(port, host, () => resolve(server));
    });

  const control = net.createServer((socket) => {
    track(socket);
    const script = next;
    next = {};
    const send = async (bytes: string) => {
      if (!script.trickle) return void socket.write(Buffer.from(bytes, "latin1"));
      for (const byte of Buffer.from(bytes, "latin1")) {
        if (socket.destroyed) return;
        socket.write(Buffer.from([byte]));
        await new Promise((r) => setImmediate(r));
      }
    };
    const listing = script.listing ?? "-rw-r--r--    1 ftp      ftp            5 Nov 25 20:59 from-the-control-host.csv\r\n";
    let data: { served: Promise<boolean> } | null = null;

    /** A data listener and the trap beside it; the port both listen on. */
    const passive = async (): Promise<number> => {
      let connected!: (yes: boolean) => void;
      const served = new Promise<boolean>((resolve) => (connected = resolve));
      const real = await serve("127.0.0.1", 0, () => listing, () => connected(true));
      const port = (real.address() as net.AddressInfo).port;
      await serve(TRAP_HOST, port, () => "-rw-r--r--    1 ftp      ftp            4 Nov 25 20:59 from-the-trap.csv\r\n", () => trapped.push(`${TRAP_HOST}:${port}`)).catch(() => null);
      data = { served: Promise.race([served, new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]) };
      return port;
    };

    const answer = async (verb: string): Promise<string | null> => {
      const scripted = script.replies?.[verb];
      if (scripted !== undefined) return scripted;
      switch (verb) {
        case "USER":
          return "331 Password please.\r\n";
        case "PASS":
          return "230 Logged in.\r\n";
        case "TYPE":
          return "200 Binary it is.\r\n";
        case "FEAT":
          return "211-Features:\r\n EPSV\r\n SIZE\r\n211 End\r\n";
        case "PWD":
          return '257 "/" is the current directory\r\n';
        case "CWD":
          return "250 Directory changed.\r\n";
        case "EPSV":
          return `229 Entering Extended Passive Mode (|||${await passive()}|)\r\n`;
        case "PASV": {
          const port = await passive();
          return `227 Entering Passive Mode (${(script.pasvHost ?? "127.0.0.1").replace(/\./g, ",")},${port >> 8},${port & 255}).\r\n`;
        }
        case "LIST":
        case "MLSD":
        case "RETR": {
          if (!data) return "425 Use PASV or EPSV first.\r\n";
          const { served } = data;
          data = null;
          await send("150 Here it comes.\r\n");
          return (await served) ? "226 Transfer complete.\r\n" : "425 No data connection came.\r\n";
        }
        case "QUIT":
          return "221 Goodbye.\r\n";
        default:
          return "502 Not implemented.\r\n";
      }
    };

    let pending = "";
    let queue = Promise.resolve();
    socket.on("data", (chunk: Buffer) => {
      pending += chunk.toString("latin1");
      for (let end = pending.indexOf("\r\n"); end >= 0; end = pending.indexOf("\r\n")) {
        const verb = pending.slice(0, end).split(" ")[0].toUpperCase();
        pending = pending.slice(end + 2);
        queue = queue.then(async () => {
          if (socket.destroyed) return;
          const reply = await answer(verb);
          if (reply !== null) await send(reply);
          if (script.closeAfter === verb) socket.end();
        });
      }
    });
    void send(script.greeting ?? "220 Hostile FTP ready.\r\n").then(() => {
      if (script.closeAfter === "greeting") socket.end();
    });
  });

  const listen = (server: net.Server) =>
    new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)));
  project.provide("ftpHostile", { port: await listen(control), scriptPort: await listen(scripts) });

  return async () => {
    for (const socket of sockets) socket.destroy();
    for (const server of [control, scripts, ...servers]) await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}
