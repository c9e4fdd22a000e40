// Node's http2 client against an h2c server (argv[2], e.g.
// http://127.0.0.1:8080): a plain CONNECT to an authority, then an
// extended CONNECT (RFC 8441, :protocol websocket) to argv[3], a route
// that is not a WebSocket. Prints one line per request: its :status (or
// the error) and how long it took, in ms. Neither request ends its stream.
const http2 = require('http2');
const session = http2.connect(process.argv[2]);
session.on('error', (e) => { console.log('session error ' + e.code); process.exit(1); });
setTimeout(() => { console.log('timeout'); process.exit(1); }, 4000);
function ask(headers) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const req = session.request(headers, { endStream: false });
    const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
    req.on('response', (h) => resolve(h[':status'] + ' ' + ms().toFixed(1)));
    req.on('error', (e) => resolve('error ' + e.code + ' ' + ms().toFixed(1)));
  });
}
session.on('remoteSettings', async (s) => {
  if (session.asked) return;
  session.asked = true;
  console.log(await ask({ ':method': 'CONNECT', ':authority': 'example.com:443' }));
  if (!s.enableConnectProtocol) {
    console.log('no enableConnectProtocol');
  } else {
    console.log(await ask({ ':method': 'CONNECT', ':protocol': 'websocket', ':path': process.argv[3],
      ':scheme': 'http', ':authority': 'localhost', 'sec-websocket-version': '13' }));
  }
  session.close();
  process.exit(0);
});
