"""A TCP relay on 127.0.0.1 that delays every chunk by a random 50-300 ms, in order.

Between the browser and the table it plays a club's Wi-Fi: each chunk is held a random
time but never overtakes the one before (TCP keeps order), so delays stack up when
messages come quickly, as they do on a busy network.
"""

from __future__ import annotations

import asyncio
import random
import threading


class JitterProxy:
    def __init__(self, target_port: int, jitter: tuple[float, float], seed: int = 0) -> None:
        self.target_port = target_port
        self.jitter = jitter
        self.rng = random.Random(seed)
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._ready = threading.Event()
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the jitter proxy did not start")

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self._server = self.loop.run_until_complete(
            asyncio.start_server(self._relay, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self.loop.run_forever()
        # every relay ends here, on its own loop, before the loop is closed
        tasks = asyncio.all_tasks(self.loop)
        for task in tasks:
            task.cancel()
        self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        self.loop.close()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self._pump(reader, up_w), self._pump(up_r, writer),
                             return_exceptions=True)

    async def _pump(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        last = 0.0

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                await asyncio.sleep(max(0.0, due - loop.time()))
                if not chunk:
                    dst.close()
                    return
                dst.write(chunk)
                await dst.drain()

        sender = asyncio.create_task(deliver())
        try:
            while True:
                try:
                    chunk = await src.read(65536)
                except OSError:
                    chunk = b""
                last = max(last, loop.time() + self.rng.uniform(*self.jitter))
                queue.put_nowait((last, chunk))
                if not chunk:
                    break
            await sender
        finally:
            sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)

    def close(self) -> None:
        def stop() -> None:
            if self._server is not None:
                self._server.close()
            self.loop.stop()

        self.loop.call_soon_threadsafe(stop)
        self._thread.join(5)
