"""BHASA NLP tasks (paper Section 3; datasets as in Table 2 and `reference/bhasa_datasets.csv`).

English prompts are the paper's (Tables 3-10); native prompts come from SEA-HELM task configs
(`seahelm:<file>:<key>`) read at run time. Label words, NER and toxicity label lists per language live in the
language entries (`evaluator.languages`).
"""
from evaluator.spec import PromptTemplate, TaskSpec

L4 = ("id", "vi", "th", "ta")
SEAHELM_VIEW = ("seahelm_nba", "seahelm_macro_f1")
"""Secondary metrics that reproduce SEA-HELM's classification scores (its public board's view)."""

NER = TaskSpec(
    name="ner", family="bhasa", group="NLU", langs=L4, mode="generate", loader="bhasa.ner",
    extractor="ner_tags", metrics=("ner_f1",),
    dataset={"id": "NERGrit", "vi": "VLSP2018", "th": "ThaiNER 1.5.1 (BHASA: v2.0)", "ta": "Naamapadam"},
    chance=0.0, max_tokens=512, language_slots={"labels": "ner_labels"},
    prompt_en=PromptTemplate(
        "Perform Named Entity Recognition (NER) on the following text using only the following labels: "
        "{labels}. Please follow the format given in the following example:\n"
        "Example Text: Asia is a continent.\nExample Answer: @@PLACE@@Asia## is a continent.\n"
        "Text: {text}\nAnswer:"),
    description="Tag named entities inline (@@TYPE@@span##); strict entity-level micro F1.",
)

QA = TaskSpec(
    name="qa", family="bhasa", group="NLU", langs=L4, mode="generate", loader="bhasa.qa",
    extractor="qa_span", metrics=("squad_f1", "squad_em", "squad_f1_newmm"),
    headline={"th": "squad_f1_newmm"},
    dataset={"id": "TyDiQA", "vi": "XQuAD", "th": "XQuAD", "ta": "IndicQA"},
    chance=0.0, max_tokens=256, trim_tokens={"ta": 3500},
    prompt_en=PromptTemplate(
        "You will be given a paragraph and a question. Answer the question by extracting the answer from "
        "the paragraph.\nParagraph: {context}\nQuestion: {question}\nAnswer:"),
    native_pack="seahelm:nlu_question_answering.yaml:qa",
    copy_baseline=("context", "first_sentence"),
    description="Extractive QA; SQuAD F1 (max over gold answers); Thai headline after newmm retokenisation.",
)

SENTIMENT = TaskSpec(
    name="sentiment", family="bhasa", group="NLU", langs=L4, mode="generate", loader="bhasa.sentiment",
    extractor="label", metrics=("macro_f1", "accuracy", "balanced_accuracy", *SEAHELM_VIEW),
    headline={"ta": "accuracy"},
    dataset={"id": "NusaX", "vi": "UIT-VSFC", "th": "Wisesight", "ta": "IndicSentiment"},
    labels={"id": ("positive", "negative", "neutral"), "vi": ("positive", "negative", "neutral"),
            "th": ("positive", "negative", "neutral"), "ta": ("positive", "negative")},
    chance={"id": 1 / 3, "vi": 1 / 3, "th": 1 / 3, "ta": 1 / 2}, max_tokens=32,
    prompt_en=PromptTemplate(
        "What is the sentiment of the following sentence?\n{text}\n"
        "Answer only with a single word: Positive/Negative/Neutral"),
    native_pack="seahelm:nlu_sentiment_analysis.yaml:sentiment",
    description="Sentiment classification; macro F1 (accuracy for Tamil, two classes).",
)

TOXICITY = TaskSpec(
    name="toxicity", family="bhasa", group="NLU", langs=("id", "vi", "th"), mode="generate",
    loader="bhasa.toxicity", extractor="label", metrics=("macro_f1", "accuracy", "balanced_accuracy", *SEAHELM_VIEW),
    dataset={"id": "MLHSD", "vi": "ViHSD", "th": "Thai Toxicity Tweet"},
    labels={"id": ("clean", "abusive", "hate"), "vi": ("clean", "offensive", "hate"),
            "th": ("non-toxic", "toxic")},
    chance={"id": 1 / 3, "vi": 1 / 3, "th": 1 / 2}, max_tokens=32,
    language_slots={"label_definitions": "toxicity_labels.definitions", "label_choices": "toxicity_labels.choices"},
    prompt_en=PromptTemplate(
        "You are a hate speech detector. The label definitions are as follows:\n{label_definitions}\n"
        "When given a sentence, classify it with a single word: {label_choices}.\nSentence: {text}"),
    native_pack="seahelm:safety_toxicity_detection.yaml:toxicity",
    description="Toxicity classification with the dataset authors' label definitions; macro F1.",
)

_MT_PROMPT = PromptTemplate("Translate the following text into {target_language}.\nText: {text}\nTranslation:")

TRANSLATION_EN_XX = TaskSpec(
    name="translation-en-xx", family="bhasa", group="NLG", langs=L4, mode="generate", loader="bhasa.mt_en_xx",
    extractor="free_text", metrics=("chrf++", "comet22"), dataset={lang: "FLORES-200" for lang in L4},
    chance=0.0, max_tokens=256, prompt_en=_MT_PROMPT, language_slots={"target_language": "name"},
    output_tag="translation", rollup_as="translation", native_pack="seahelm:nlg_translation.yaml:translation-en-xx",
    copy_baseline=("text", "whole"), human_protocol="mt",
    description="English → target language, FLORES-200 devtest; ChrF++ (COMET-22 when its checkpoint is present).",
)

TRANSLATION_XX_EN = TaskSpec(
    name="translation-xx-en", family="bhasa", group="NLG", langs=L4, mode="generate", loader="bhasa.mt_xx_en",
    extractor="free_text", metrics=("chrf++", "comet22"), dataset={lang: "FLORES-200" for lang in L4},
    chance=0.0, max_tokens=256, prompt_en=_MT_PROMPT, language_slots={"target_language": "en:name"},
    output_tag="translation", rollup_as="translation", native_pack="seahelm:nlg_translation.yaml:translation-xx-en",
    copy_baseline=("text", "whole"), human_protocol="mt",
    description="Target language → English, FLORES-200 devtest; ChrF++ (COMET-22 when its checkpoint is present).",
)

ABSSUM = TaskSpec(
    name="abssum", family="bhasa", group="NLG", langs=L4, mode="generate", loader="bhasa.abssum",
    extractor="free_text", metrics=("rougeL", "rougeL_nows"), dataset={lang: "XLSum" for lang in L4},
    chance=0.0, temperature=0.3, max_tokens=512, trim_tokens={"th": 3300, "ta": 3300}, output_tag="summary",
    prompt_en=PromptTemplate(
        "Article: {text}\nSummarize this {language} article in 1 or 2 sentences. "
        "The response should be in {language}.\nSummary:"),
    native_pack="seahelm:nlg_abstractive_summarization.yaml:abssum",
    copy_baseline=("text", "first_sentence"), human_protocol="summarisation",
    description="Abstractive summarisation of XL-Sum articles; multilingual ROUGE-L F1 (XL-Sum scorer).",
)

NLI = TaskSpec(
    name="nli", family="bhasa", group="NLR", langs=L4, mode="generate", loader="bhasa.nli",
    extractor="letter", metrics=("accuracy", "macro_f1", *SEAHELM_VIEW),
    dataset={"id": "IndoNLI", "vi": "XNLI", "th": "XNLI", "ta": "IndicXNLI"},
    labels={lang: ("A", "B", "C") for lang in L4}, chance=1 / 3, max_tokens=32,
    prompt_en=PromptTemplate(
        "You will be given two sentences, X and Y.\nX: {premise}\nY: {hypothesis}\n"
        "Determine which of the following statements applies to sentences X and Y the best.\n"
        "A: If X is true, Y must be true.\nB: X contradicts Y.\nC: When X is true, Y may or may not be true.\n"
        "Answer strictly with a single letter A, B or C."),
    native_pack="seahelm:nlr_nli.yaml:nli",
    description="NLI as a letter choice (A entailment, B contradiction, C neutral); accuracy.",
)

CAUSAL = TaskSpec(
    name="causal", family="bhasa", group="NLR", langs=L4, mode="generate", loader="bhasa.causal",
    extractor="letter", metrics=("accuracy", "order_consistency", *SEAHELM_VIEW),
    dataset={lang: "XCOPA" for lang in L4},
    labels={lang: ("A", "B") for lang in L4}, chance=0.5, max_tokens=32, both_orders=True,
    option_fields=("choice1", "choice2"),
    prompt_en=PromptTemplate(
        "Situation: {premise}\nGiven this situation, which of the following choices is most likely to be its "
        "{question}?\nA: {choice1}\nB: {choice2}\nRespond strictly with the letters A or B only."),
    native_pack="seahelm:nlr_causal.yaml:causal",
    description="XCOPA cause/effect choice (cause/effect corrected by cross-language consensus); accuracy.",
)

TASKS = (NER, QA, SENTIMENT, TOXICITY, TRANSLATION_EN_XX, TRANSLATION_XX_EN, ABSSUM, NLI, CAUSAL)
