"""The fast model's answer over a page: which model, what it is sent, and what a failure gives."""

from __future__ import annotations

from actors.errors import ApiError
from actors.protocol import (
    DescribeProvider,
    Message,
    MessageFinished,
    ModelClientMsg,
    ProviderReport,
    StreamMessage,
    Usage,
)
from actors.tool_executor.web.summary import FastModel
from runtime import Actor, Reply, supervise


class Model(Actor[ModelClientMsg]):
    """A model client double: a provider, and an answer (or an API error) to every request."""

    name = "model"

    def __init__(self, provider: str = "anthropic", *, fails: bool = False) -> None:
        super().__init__()
        self.provider = provider
        self.fails = fails
        self.requests: list[StreamMessage] = []

    async def handle(self, msg: ModelClientMsg, reply: Reply) -> None:
        match msg:
            case DescribeProvider():
                report = ProviderReport(provider=self.provider, base_url="x", credentials=())  # type: ignore[arg-type]
                await reply.answer(msg, report)
            case StreamMessage():
                self.requests.append(msg)
                if self.fails:
                    raise ApiError("the API is overloaded")
                said = Message("assistant", [{"type": "text", "text": "Use pip."}])
                usage = Usage(input_tokens=120, output_tokens=8)
                finished = MessageFinished(message=said, stop_reason="end_turn", usage=usage)
                await reply.sender(msg)(finished)


async def test_the_anthropic_provider_answers_with_haiku() -> None:
    model = Model()
    async with supervise([model]):
        fast = FastModel(model.address, main_model="claude-sonnet-4-6", env={})
        answer = await fast.answer("https://x.test/", "# Install\npip install x", "How?")
    # What the small model's request cost goes with the answer, priced as Haiku's.
    spent = (("claude-haiku-4-5-20251001", Usage(input_tokens=120, output_tokens=8)),)
    assert answer == ("Use pip.", None, spent)
    [sent] = model.requests
    assert sent.request.model == "claude-haiku-4-5-20251001"
    [block] = sent.request.messages[0].content
    assert block["text"] == (
        '<web-page url="https://x.test/">\n# Install\npip install x\n</web-page>\n\n'
        "The question about this page: How?"
    )


async def test_a_chosen_small_model_is_used_and_another_provider_has_none() -> None:
    model = Model("openai")
    async with supervise([model]):
        none = FastModel(model.address, main_model="gpt-5", env={})
        assert await none.answer("https://x.test/", "text", "q") == (None, None, ())
        chosen = FastModel(model.address, main_model="gpt-5", env={"ASSISTANT_SMALL_MODEL": "mini"})
        assert (await chosen.answer("https://x.test/", "text", "q"))[:2] == ("Use pip.", None)
    assert [sent.request.model for sent in model.requests] == ["mini"]


async def test_a_failed_answer_says_why() -> None:
    model = Model(fails=True)
    async with supervise([model]):
        fast = FastModel(model.address, main_model="claude-sonnet-4-6", env={})
        assert await fast.answer("https://x.test/", "text", "q") == (
            None,
            "the API is overloaded",
            (),
        )
