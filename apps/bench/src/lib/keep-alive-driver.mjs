// A raw HTTP/1.1 load driver for the by-hand drivers (verified-server-count.mjs, which loads any
// build's dist as plain node, and verified-server-micro.ts): plain JS so that both can load it.
import { connect } from 'node:net';

/**
 * Sends every prebuilt request over `sockets` keep-alive connections to 127.0.0.1:`port`, one in
 * flight each; resolves when all are answered with 200. With `expectResult`, every reply body must
 * hold a JSON-RPC `"result"` (off where the driver shares the process it measures: reading the body
 * would be counted too).
 */
export function driveKeepAlive(port, requests, { sockets: count = 32, expectResult = false } = {}) {
  return new Promise((done, fail) => {
    let next = 0;
    let answered = 0;
    const sockets = [];
    const finish = (error) => {
      for (const socket of sockets) socket.destroy();
      error ? fail(error) : done();
    };
    for (let c = 0; c < count; c++) {
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      socket.setNoDelay(true);
      let pending = Buffer.alloc(0);
      const send = () => {
        if (next < requests.length) socket.write(requests[next++]);
      };
      socket.on('connect', send);
      socket.on('error', finish);
      socket.on('data', (chunk) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        for (;;) {
          const end = pending.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = pending.subarray(0, end).toString('latin1');
          const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? Number.NaN);
          if (!head.startsWith('HTTP/1.1 200') || Number.isNaN(length)) return finish(new Error(`unexpected reply: ${head.slice(0, 200)}`));
          if (pending.length < end + 4 + length) return;
          if (expectResult) {
            const reply = pending.subarray(end + 4, end + 4 + length).toString();
            if (!reply.includes('"result"')) return finish(new Error(`not a result: ${reply.slice(0, 200)}`));
          }
          pending = pending.subarray(end + 4 + length);
          answered++;
          if (answered === requests.length) return finish();
          send();
        }
      });
    }
  });
}
