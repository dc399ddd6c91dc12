"""LINDSEA linguistic diagnostics (BHASA paper Section 4; prompts from LINDSEA's `prompts.yaml`).

Both the English and the native prompt come from the prompt pack that travels with the data
(`lindsea:<section>.<key>`); the minimal-pair English prompt is also the paper's Table 29.
"""
from evaluator.spec import PromptTemplate, TaskSpec

L2 = ("id", "ta")

MINIMAL_PAIRS = TaskSpec(
    name="lindsea-mp", family="lindsea", group="LD", langs=L2, mode="generate", loader="lindsea.mp",
    extractor="letter", metrics=("accuracy", "order_consistency", "phenomenon_macro"),
    labels={lang: ("A", "B") for lang in L2}, chance=0.5, max_tokens=32, both_orders=True,
    option_fields=("correct", "wrong"), logprob_of="sentences", aliases=("minimal-pairs", "lindsea-minimal-pairs"),
    prompt_en=PromptTemplate("Which sentence is more acceptable?\nA: {correct}\nB: {wrong}\nAnswer with A or B only.",
                             system="You are a {language} linguist."),
    native_pack="lindsea:syntax.minimal_pairs", dataset={lang: "LINDSEA syntax" for lang in L2},
    description="Minimal pairs (morphology, argument structure, filler-gap, NPIs and negation); accuracy. Scored by "
                "log-probabilities, the pick is the more probable sentence (no prompt), as in BLiMP.",
)

PRAGMATIC_SINGLE = TaskSpec(
    name="lindsea-pragmatic-single", family="lindsea", group="LD", langs=L2, mode="generate",
    loader="lindsea.pragmatic_single", extractor="true_false", metrics=("accuracy",),
    labels={lang: ("true", "false", "yes", "no") for lang in L2}, chance=0.5, max_tokens=32,
    native_pack="lindsea:pragmatics.pragmatic_reasoning_single", dataset={lang: "LINDSEA pragmatics" for lang in L2},
    description="Scalar implicatures and presuppositions, one statement: True/False (or Yes/No); accuracy.",
)

PRAGMATIC_PAIR = TaskSpec(
    name="lindsea-pragmatic-pair", family="lindsea", group="LD", langs=L2, mode="generate",
    loader="lindsea.pragmatic_pair", extractor="true_false", metrics=("accuracy",),
    labels={lang: ("true", "false") for lang in L2}, chance=0.5, max_tokens=32,
    native_pack="lindsea:pragmatics.pragmatic_reasoning_pair", dataset={lang: "LINDSEA pragmatics" for lang in L2},
    description="Situation + conclusion: True/False; accuracy.",
)

COREF_BINARY = TaskSpec(
    name="lindsea-coref-binary", family="lindsea", group="LD", langs=L2, mode="generate",
    loader="lindsea.coref_binary", extractor="letter", metrics=("accuracy", "order_consistency"),
    labels={lang: ("A", "B") for lang in L2}, chance=0.5, max_tokens=32, both_orders=True,
    option_fields=("choice1", "choice2"),
    native_pack="lindsea:semantics.coref_binary_choice", dataset={lang: "LINDSEA semantics" for lang in L2},
    description="Winograd-style blank filling between two referents; accuracy.",
)

COREF_OPEN = TaskSpec(
    name="lindsea-coref-open", family="lindsea", group="LD", langs=L2, mode="generate",
    loader="lindsea.coref_open", extractor="free_text", metrics=("contains_match",), chance=0.0, max_tokens=128,
    native_pack="lindsea:semantics.coref_open_ended", dataset={lang: "LINDSEA semantics" for lang in L2},
    gold_alternatives=True, contains_whole_output=False,
    description="Open-ended referent recovery; scored by whether the gold referent appears in the answer.",
)

COREF_PRONOUN = TaskSpec(
    name="lindsea-coref-pronoun", family="lindsea", group="LD", langs=("id",), mode="generate",
    loader="lindsea.coref_pronoun", extractor="free_text", metrics=("contains_match",), chance=0.0, max_tokens=128,
    native_pack="lindsea:semantics.coref_pronoun_resolution", dataset={"id": "LINDSEA semantics"},
    gold_alternatives=True, contains_whole_output=False,
    description="Who or what does the pronoun refer to; scored by whether the gold referent appears.",
)

TRANSLATION = TaskSpec(
    name="lindsea-translation", family="lindsea", group="LD", langs=L2, mode="generate",
    loader="lindsea.translation", extractor="free_text", metrics=("chrf++",), chance=0.0, max_tokens=256,
    output_tag="translation",
    native_pack="lindsea:semantics.translation", dataset={lang: "LINDSEA semantics" for lang in L2},
    description="Sentence translation probing lexical items; ChrF++ against the reference.",
)

TASKS = (MINIMAL_PAIRS, PRAGMATIC_SINGLE, PRAGMATIC_PAIR, COREF_BINARY, COREF_OPEN, COREF_PRONOUN, TRANSLATION)
