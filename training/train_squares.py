"""Train the square network and write it as ONNX for the reader.

    pip install torch==2.13.0          # training only; Kaeshi runs it through OpenCV
    python -m training.train_squares [--scenes 3000] [--seed 11] [--out FILE]

Renders its own examples (:mod:`training.square_data`), trains a small
convolutional network on the CPU with a fixed seed, reports how often it is sure
and how often it is wrong when sure on scenes of another seed, and writes
``controller/vision/models/squares.onnx``. The independent development renders in
``shared/data`` are deliberately not used here: they measure the result.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from controller.vision.reading.square_model import ACCEPT, CLASSES, INPUT, MODEL_FILE
from training.square_data import MISPLACED, Examples, make_examples


def build_network():  # noqa: ANN201 - torch is imported lazily, for training only
    import torch.nn as nn

    def block(cin: int, cout: int, pool: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                nn.MaxPool2d(pool)]

    # 18 -> 9 -> 3: the last map keeps where in the patch things are (the square's
    # own middle against its neighbours' rims)
    return nn.Sequential(
        *block(3, 16, 2), *block(16, 32, 3), nn.Conv2d(32, 48, 3, padding=1), nn.ReLU(),
        nn.Flatten(), nn.Linear(48 * 9, 64), nn.ReLU(), nn.Linear(64, len(CLASSES)),
    )


def train(data: Examples, epochs: int, seed: int, log: object = print):  # noqa: ANN201
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    net = build_network()
    x = torch.from_numpy(data.x)
    y = torch.from_numpy(data.y)
    counts = np.bincount(data.y, minlength=len(CLASSES)).astype(np.float64)
    # rare states (a hidden square, a shifted disc) weigh as much as common ones
    weight = torch.tensor((counts.sum() / np.maximum(counts, 1) / len(CLASSES)) ** 0.5,
                          dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * (len(x) // 256 + 1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(x), generator=gen)
        total, started = 0.0, time.time()
        for k in range(0, len(x), 256):
            idx = order[k : k + 256]
            xb = x[idx].float()
            # the felt estimate may be off: shift all channels together, and each a little
            xb = xb + 0.25 * torch.randn(len(idx), 1, 1, 1, generator=gen)
            xb = xb + 0.08 * torch.randn(len(idx), 3, 1, 1, generator=gen)
            if torch.rand(1, generator=gen) < 0.5:
                xb = xb.flip(3)
            if torch.rand(1, generator=gen) < 0.5:
                xb = xb.flip(2)
            loss = loss_fn(net(xb), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        log(f"epoch {epoch + 1}/{epochs}: loss {total / len(x):.4f} "
            f"({time.time() - started:.0f} s)")
    net.eval()
    return net


def evaluate(net, data: Examples) -> str:  # noqa: ANN001
    """How often the network is sure on held-out scenes, and wrong when sure."""
    import torch

    with torch.no_grad():
        p = torch.cat([torch.softmax(net(torch.from_numpy(data.x[k : k + 2048]).float()), 1)
                       for k in range(0, len(data.x), 2048)]).numpy()
    best, conf = p.argmax(1), p.max(1)
    other = CLASSES.index("other")
    sure = (conf >= ACCEPT) & (best != other)
    wrong = sure & (best != data.y)
    hidden_guess = sure & (data.y == other)
    return (f"held out: {len(data.y)} squares, sure on {100 * sure.mean():.2f}%, "
            f"wrong when sure {wrong.sum()} ({100 * wrong.sum() / max(1, sure.sum()):.4f}%), "
            f"of them on hidden or shifted squares {hidden_guess.sum()}; "
            f"argmax accuracy {100 * (best == data.y).mean():.2f}%")


def export(net, path: Path) -> None:  # noqa: ANN001
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, INPUT, INPUT)
    torch.onnx.export(net, (dummy,), str(path), input_names=["patches"],
                      output_names=["logits"], opset_version=13, dynamo=False,
                      dynamic_axes={"patches": {0: "n"}, "logits": {0: "n"}})


def _examples(args: argparse.Namespace) -> tuple[Examples, Examples]:
    key = np.array([args.scenes, args.held_out, args.seed, args.misplaced])
    if args.cache and args.cache.is_file():
        z = np.load(args.cache)
        if np.array_equal(z["key"], key):
            return Examples(z["x"], z["y"]), Examples(z["hx"], z["hy"])
    data = make_examples(args.scenes, args.seed, args.workers, args.misplaced)
    held = make_examples(args.held_out, args.seed + 1, args.workers, args.misplaced)
    if args.cache:
        np.savez(args.cache, key=key, x=data.x, y=data.y, hx=held.x, hy=held.y)
    return data, held


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.train_squares",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=int, default=8000, help="training scenes")
    ap.add_argument("--held-out", type=int, default=400, help="scenes to check on")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--epochs", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--misplaced", type=float, default=MISPLACED,
                    help="share of scenes whose grid is put up to a square off")
    ap.add_argument("--out", type=Path, default=MODEL_FILE)
    ap.add_argument("--cache", type=Path, help="keep the rendered examples in this .npz "
                    "file and reuse them when it exists (same scenes and seed only)")
    args = ap.parse_args(argv)
    t0 = time.time()
    data, held = _examples(args)
    print(f"rendered {len(data.y)} training squares, {len(held.y)} held out "
          f"({time.time() - t0:.0f} s); classes {np.bincount(data.y).tolist()}", flush=True)
    net = train(data, args.epochs, args.seed, log=lambda s: print(s, flush=True))
    print(evaluate(net, held), flush=True)
    export(net, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
