"""The key model names are compared by (evaluator.names): names that only look alike share it, others do not;
the look-alike classes are the confusables of Unicode TR39 as the `confusable_homoglyphs` package ships them."""
from __future__ import annotations

import pytest
from confusable_homoglyphs import confusables

from evaluator.names import lookalike, name_keys


@pytest.mark.parametrize("name", ["GPT\u20115.5", "GPT-5.5\u200b", "GP\u0422-5.5", "GPT\u22125.5", "gpt-5.5",
                                  "\uff27\uff30\uff34-5.5", " GPT-5.5 ", "G\u00adPT-5.5", "GPT\u2010\u200d5.5"])
def test_lookalikes_of_gpt_share_its_key(name):
    assert set(name_keys(name)) & set(name_keys("GPT-5.5"))
    assert lookalike(name, ["Gemma-2B", "GPT-5.5"]) == "GPT-5.5"


@pytest.mark.parametrize("name", ["GPT-5.6", "GPT-5", "GPT 5.5", "GPT-5.5-mini", "Gémma-2B", "GPT-S.5", "Gemma-7B"])
def test_different_names_keep_different_keys(name):
    assert lookalike(name, ["GPT-5.5", "Gemma-2B"]) is None


def test_the_classes_are_the_librarys():
    """Cyrillic Te and Latin T are one class for the library, and so for the key; TR39's 'l' / '1' / 'I' too."""
    assert confusables.is_confusable("GP\u0422", preferred_aliases=["latin"])[0]["homoglyphs"][0]["c"] == "T"
    assert name_keys("Sea-Lion")[0] == name_keys("Sea-Iion")[0] == name_keys("SEA-LION")[1] == name_keys("Sea-1ion")[0]
    assert name_keys("GPT-4O")[0] == name_keys("GPT-40")[0] and name_keys("GPT-4O")[1] == name_keys("gpt-4o")[1]
    assert lookalike("GPT-4O", ["gpt-4o"]) == "gpt-4o" and lookalike("GPT-4O", ["GPT-40"]) == "GPT-40"
    assert lookalike("Gemma-2B", ["Gemma-7B", "Gemma-2", "GemmA-2b-it"]) is None
    assert lookalike("GPT-5.5", ["GPT-5.5"]) is None  # a name is not its own look-alike
