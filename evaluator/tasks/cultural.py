"""Cultural representation probes (BHASA repository `culture/representation`): open-ended, human-rated."""
from evaluator.spec import TaskSpec

CULTURAL_REPRESENTATION = TaskSpec(
    name="cultural-representation", family="cultural", group="CULT", langs=("id", "ta"), mode="open",
    loader="cultural.representation", extractor="free_text", metrics=(), chance=None, max_tokens=1024,
    temperature=0.3, prompt_en=None, native_pack="item:prompt",
    dataset={"id": "BHASA cultural", "ta": "BHASA cultural"},
    description="Open questions on proverbs, customs and culture in the native language; no gold, rated by people.",
)

TASKS = (CULTURAL_REPRESENTATION,)
