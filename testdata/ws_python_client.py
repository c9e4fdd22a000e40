"""An independent WebSocket client for gwist's tests: Python's websockets
(Debian's python3-websockets). Usage: ws_python_client.py URL (a wss:// URL is not verified:
the test's certificate is from its own CA).
Prints OK when every check passed; exits non-zero otherwise."""
import asyncio
import ssl
import sys

import websockets


async def main(url):
    ctx = None
    if url.startswith("wss://"):
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    # compression="deflate" (the default) offers permessage-deflate.
    async with websockets.connect(url, ssl=ctx, compression="deflate", max_size=8 << 20) as ws:
        ext = [e.name for e in ws.protocol.extensions] if hasattr(ws, "protocol") else [e.name for e in ws.extensions]
        assert "permessage-deflate" in ext, ext
        await ws.send("hello")
        assert await ws.recv() == "hello"
        await ws.send(b"\x00\x01\xff")
        assert await ws.recv() == b"\x00\x01\xff"
        # A fragmented message: one frame per piece.
        await ws.send(["frag", "men", "ted ☃"])
        assert await ws.recv() == "fragmented ☃"
        big = ("x" * 1000 + "y") * 1000
        await ws.send(big)
        assert await ws.recv() == big
        pong = await ws.ping(b"are you there")
        await asyncio.wait_for(pong, 5)
        await ws.close(code=1000, reason="bye")
        assert ws.close_code == 1000, ws.close_code
    print("OK")


asyncio.run(main(sys.argv[1]))
