"""The one-step builders of evaluator.spec equal the records' own constructors, field for field."""
from dataclasses import FrozenInstanceError, fields, replace

import pytest

from evaluator.spec import ItemResult, Prediction, read_prediction, result_for


def test_read_prediction_equals_the_constructor_and_sets_every_field():
    fast = read_prediction("sentiment", "id", "7", "native", "Positif", 2, "ba", "thought", "the prompt", 12)
    slow = Prediction(task="sentiment", lang="id", item_id="7", prompt_lang="native", output="Positif", run=2,
                      order="ba", reasoning="thought", prompt="the prompt", line=12)
    assert fast == slow and repr(fast) == repr(slow)
    assert set(vars(fast)) == {f.name for f in fields(Prediction)}  # a field added to the class must be added here
    assert fast.self_reported == {} and fast.self_reported is not read_prediction(
        "sentiment", "id", "8", "en", None, 1, "ab", None, None, 13).self_reported  # a fresh mapping per row
    assert replace(fast, run=3) == replace(slow, run=3)
    with pytest.raises(FrozenInstanceError):
        fast.output = "Negatif"


def test_result_for_copies_the_scored_fields_onto_another_prediction():
    pred = Prediction(task="sentiment", lang="id", item_id="7", prompt_lang="en", output="Positif")
    other = replace(pred, run=2)
    done = ItemResult(prediction=pred, answer="positive", parsed=True, reasoning=None, scores={"accuracy": 1.0},
                      extras={"via": "label"})
    fast = result_for(other, done)
    assert fast == ItemResult(prediction=other, answer="positive", parsed=True, reasoning=None,
                              scores={"accuracy": 1.0}, extras={"via": "label"})
    assert set(vars(fast)) == {f.name for f in fields(ItemResult)}
    assert fast.scores is done.scores  # shared, as the ingest documents
