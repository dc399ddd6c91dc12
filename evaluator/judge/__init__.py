"""An LLM judge as a recorded component: its templates (`templates`), the requests for a conversation's turns
(`requests`), the verdicts read from its replies (`verdicts`), the client (`client`, any OpenAI-compatible endpoint
under the endpoint policy), the judging loop with its cache (`judging`) and its agreement with human ratings
(`agreement`).

Judge scores are never metric scores: they live in their own table (`judge_scores`), named by judge model and
template version, and every page labels them as judge scores.
"""
