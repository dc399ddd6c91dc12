"""Task and family files: every built-in task is one file named after it whose parts are registered; a family is
declared once; bad or repeated declarations are refused naming the file and the field."""
from __future__ import annotations

from pathlib import Path

import pytest

from evaluator import task_check
from evaluator.datasets import LOADERS
from evaluator.datasets.base import register_loader
from evaluator.registry import BOARDS, FAMILIES, FAMILY_TASKS, TASKS
from evaluator.tasks import BUILTIN_DIR, TaskError, load_tasks

TASK = "name: {name}\ngroup: NLR\nlangs: [id]\nmode: generate\nextractor: letter\nmetrics: [accuracy]\nloader: x\n"


def test_every_built_in_task_is_one_file_named_after_it_and_its_parts_are_registered():
    files = {p.stem: p for p in BUILTIN_DIR.glob("*/*.yaml") if p.name != "family.yaml"}
    assert {t.name for t in TASKS.values() if t.source} == set(files)
    assert all(Path(TASKS[name].source) == path for name, path in files.items())
    assert len(TASKS) == 50 and sum(t.family == "pacute" for t in TASKS.values()) == 19  # the module's grid
    assert task_check.problems() == []


def test_families_are_declared_once_and_every_task_has_one():
    assert list(FAMILIES) == ["bhasa", "lindsea", "cultural", "pacute", "instruction", "seahelm", "chat"]
    # cultural is human-rated
    assert BOARDS == {"BHASA": "bhasa", "LINDSEA": "lindsea", "PACUTE": "pacute",
                      "Instruction following": "instruction", "Knowledge & reading": "seahelm"}
    assert {t.family for t in TASKS.values()} == set(FAMILIES)
    assert FAMILY_TASKS["bhasa"][:3] == ("ner", "qa", "sentiment")  # the family's own order


def _folder(root: Path, family: str, **tasks: str) -> Path:
    (root / family).mkdir(parents=True)
    (root / family / "family.yaml").write_text(f"title: {family.title()}\n", encoding="utf-8")
    for stem, text in tasks.items():
        (root / family / f"{stem}.yaml").write_text(text, encoding="utf-8")
    return root / family


def test_a_task_declared_twice_names_both_files(tmp_path):
    one = _folder(tmp_path / "a", "demo", first=TASK.format(name="odd"))
    two = tmp_path / "b" / "demo"
    two.mkdir(parents=True)
    (two / "second.yaml").write_text(TASK.format(name="odd"), encoding="utf-8")  # adds to the family declared in a/
    with pytest.raises(TaskError) as err:
        load_tasks([tmp_path / "a", tmp_path / "b"])
    assert str(err.value) == (f"{two / 'second.yaml'}: name: task 'odd' is already declared in "
                              f"{one / 'first.yaml'}")


@pytest.mark.parametrize("text, message", [
    (TASK.format(name="odd").replace("loader: x\n", ""), "loader: missing"),
    (TASK.format(name="odd").replace("langs: [id]", "langs: id"), "langs: expected a list of strings"),
    (TASK.format(name="odd").replace("mode: generate", "mode: dialogue"), "mode: 'dialogue' is not one of"),
    (TASK.format(name="odd") + "family: bhasa\n", "family: 'bhasa', but the file is in the folder of family 'demo'"),
    (TASK.format(name="odd") + "data: {file: \"../x/{lang}.jsonl\", id: id, gold: g, inputs: [a]}\n",
     "data.file: expected a path inside the data directory"),
    (TASK.format(name="odd") + "headline: {id: f1}\n", "headline.id: 'f1' is not one of the task's metrics"),
])
def test_a_bad_task_file_names_its_file_and_field(tmp_path, text, message):
    folder = _folder(tmp_path, "demo", odd=text)
    with pytest.raises(TaskError) as err:
        load_tasks([tmp_path])
    assert str(err.value).startswith(f"{folder / 'odd.yaml'}: ") and message in str(err.value)


def test_a_folder_of_an_undeclared_family_is_refused(tmp_path):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "odd.yaml").write_text(TASK.format(name="odd"), encoding="utf-8")
    with pytest.raises(TaskError, match="family.yaml: missing"):
        load_tasks([tmp_path])


def test_a_loader_registers_once_where_it_is_defined():
    assert LOADERS["bhasa.nli"].files("th") == ("bhasa/nli/th.jsonl",)
    with pytest.raises(ValueError, match="dataset loader 'bhasa.nli' registered twice"):
        register_loader("bhasa.nli", lambda lang: ())(lambda data_dir, lang: iter(()))
    with pytest.raises(KeyError, match="did you mean 'bhasa.nli'"):
        LOADERS.lookup("bhasa.nl")
