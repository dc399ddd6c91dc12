"""`python -m evaluator items --task T --lang L [--json]`: items with ids, rendered EN and native prompts, gold."""
from __future__ import annotations

import json
import sys

from evaluator.datasets import DatasetError, load_items
from evaluator.prompts import NoNativePrompt, PromptError, as_text, render
from evaluator.registry import get_task


def add(sub) -> None:
    p = sub.add_parser("items", help="print a cell's items with rendered prompts and gold, for offline inference")
    p.add_argument("--task", required=True, help="task id or alias (see `tasks`)")
    p.add_argument("--lang", required=True, help="language code, e.g. id, vi, th, ta, tl")
    p.add_argument("--limit", type=int, default=None, help="first N items only")
    p.add_argument("--data-dir", default=None, help="data directory (default: $TANAW_DATA_DIR or ../shared/data)")
    p.add_argument("--json", action="store_true", help="JSON lines: one object per item and option order")
    p.set_defaults(func=run)


def _prompts(task, item, order, data_dir) -> dict:
    out = {}
    for pl in ("en", "native"):
        try:
            out[pl] = as_text(render(task, item, pl, order, data_dir=data_dir))
        except NoNativePrompt as e:
            out[pl] = None
            out[f"{pl}_unavailable"] = str(e)
    return out


def run(args) -> int:
    try:
        task = get_task(args.task)
        items = load_items(task, args.lang, data_dir=args.data_dir, limit=args.limit)
    except (KeyError, DatasetError) as e:
        print(f"error: {e.args[0] if e.args else e}", file=sys.stderr)
        return 2
    try:
        for item in items:
            for order in (("ab", "ba") if task.both_orders else ("ab",)):
                prompts = _prompts(task, item, order, args.data_dir)
                gold = render(task, item, "en", order, data_dir=args.data_dir).gold if prompts["en"] else item.gold
                row = {"task": task.name, "lang": item.lang, "item_id": item.item_id, "order": order,
                       "prompt_en": prompts["en"], "prompt_native": prompts["native"], "gold": gold,
                       "options": list(item.options) if item.options else None, "metadata": dict(item.metadata),
                       "warnings": list(item.warnings)}
                if "native_unavailable" in prompts:
                    row["native_unavailable"] = prompts["native_unavailable"]
                if args.json:
                    print(json.dumps(row, ensure_ascii=False))
                else:
                    print(f"=== {item.item_id} (order {order})  gold: {gold}")
                    print(f"--- EN prompt\n{prompts['en'] or prompts.get('en_unavailable')}")
                    print(f"--- native prompt\n{prompts['native'] or prompts.get('native_unavailable')}")
                    if item.warnings:
                        print(f"--- warnings: {', '.join(item.warnings)}")
    except PromptError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0
