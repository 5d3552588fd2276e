"""What every MCP client gets back, decided once for every tool, prompt and argument.

`AvenirServer` is the SDK's `MCPServer` with four answers of its own:

- `tools/call`: a result carries everything in its text too (`mcp_surface.presenting.readable`:
  the summary line, then the structured content as compact JSON), so a client that hands the
  model only `content` and one that hands it only `structuredContent` both see every id and
  amount. A refusal (a `values.refusal.Refusal` raised anywhere in a tool) or a failure
  of YNAB (a `ynab_client.errors.YnabError`, in its own words) reaches the client as
  exactly its sentence, turned into the tool's error result here and nowhere else: the SDK would put
  `Error executing tool <name>: ` before it, and would answer arguments that break the
  input schema with pydantic's multi-line text; here they are one line naming the argument
  and what to give (`mcp_surface.presenting.argument_sentence`). A crash stays the SDK's generic
  `Error executing tool <name>` (details only in the server log).
- `prompts/get`: an unknown prompt, an unknown or missing argument, or a refused one (a
  prompt raising `Refusal`, or `YnabError` for YNAB's answer) is an invalid-params error
  with one clear sentence, not an internal error with a traceback in the log.
- `completion/complete`: ids by name prefix (`mcp_surface.completion`), for every prompt and
  resource template argument named `plan_id`, `account_id` or `category_id`; for a prompt this
  server does not list (one left out for the caller's toolsets), the invalid-params error
  `prompts/get` gives.
- every tool call, prompt and resource read spends its caller's share of the hour's YNAB
  reads (`ynab_client.spending_as` with the principal's key; docs/ynab_budget.md).
- `logging/setLevel` (protocols before 2026-07-28): accepted. avenir-mcp sends clients no
  log messages (its log is the server's own), so no level lets anything more through.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import anyio.to_thread
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.prompts.base import PromptResult
from mcp.shared._callable_inspection import is_async_callable
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    Completion,
    CompletionArgument,
    CompletionContext,
    EmptyResult,
    GetPromptResult,
    InputRequiredResult,
    PromptReference,
    ResourceTemplateReference,
    SetLevelRequestParams,
)
from mcp.types import (
    Prompt as ListedPrompt,
)
from pydantic import ValidationError

from avenir_mcp.mcp_surface.completion import complete
from avenir_mcp.mcp_surface.presenting import argument_sentence, readable, refusal_result
from avenir_mcp.tokens.auth import NoPrincipalError, principal_key_of_request
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client import YnabError, spending_as

logger = logging.getLogger(__name__)


class AvenirServer(MCPServer):
    """`MCPServer` answering as the module docstring says."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.completion()(self._complete)
        # mcp 2.3.0's MCPServer has no public way to answer a request it does not handle itself;
        # its low-level server is the one place to add `logging/setLevel`.
        self._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, _set_level)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            with spending_as(_spender_of(context)):
                result = await super().call_tool(name, arguments, context)
        except UnexpectedToolError as error:
            if not isinstance(error.__cause__, Refusal | YnabError):
                raise  # a crash: the SDK logs the traceback and answers without details
            sentence = str(error.__cause__)
            logger.info("Tool %r refused: %r", name, sentence)
            return refusal_result(sentence)
        except ToolError as error:
            sentence = await self._refusal_sentence(name, error)
            logger.info("Tool %r refused: %r", name, sentence)
            return refusal_result(sentence)
        if isinstance(result, CallToolResult):
            return readable(result)
        return result

    async def _refusal_sentence(self, name: str, error: ToolError) -> str:
        """The sentence the tool (or the argument check) meant, without the SDK's prefix."""
        cause = error.__cause__
        if isinstance(cause, ValidationError):
            schemas = {tool.name: tool.input_schema for tool in await self.list_tools()}
            return argument_sentence(cause, schemas.get(name, {}))
        return str(error)  # raised by the SDK itself, e.g. `Unknown tool: x`

    async def _complete(
        self,
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion | None:
        if isinstance(ref, PromptReference):
            await self._listed_prompt(ref.name)
        return await complete(ref, argument, context)

    async def _listed_prompt(self, name: str) -> ListedPrompt:
        """The prompt of that name this server lists; else the invalid-params error naming those it does."""
        prompts = {prompt.name: prompt for prompt in await self.list_prompts()}
        prompt = prompts.get(name)
        if prompt is None:
            listed = ", ".join(sorted(prompts)) or "none"
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"No prompt {quoted(name, 60)}; prompts/list gives the prompts ({listed}).",
            )
        return prompt

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        prompt = await self._listed_prompt(name)
        given = arguments or {}
        known = [argument.name for argument in prompt.arguments or ()]
        unknown = [argument for argument in given if argument not in known]
        if unknown:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"The {name} prompt has no argument {' or '.join(unknown)}; "
                f"it takes {', '.join(known) or 'none'}.",
            )
        missing = [
            argument.name
            for argument in prompt.arguments or ()
            if argument.required and not given.get(argument.name)
        ]
        if missing:
            them = "it" if len(missing) == 1 else "them"
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"The {name} prompt needs {' and '.join(missing)}; give {them} and ask again.",
            )
        with spending_as(_spender_of(context)):
            return await super().get_prompt(name, arguments, context)

    async def read_resource(
        self, uri: Any, context: Context[Any, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        with spending_as(_spender_of(context)):
            return await super().read_resource(uri, context)

    def add_prompt(self, prompt: Prompt) -> None:
        """`prompt`, its refusals answered as invalid params: the SDK would wrap them as a crash."""
        super().add_prompt(prompt.model_copy(update={"fn": _refusals_answered(prompt.fn)}))


def _spender_of(context: Context[Any, Any] | None) -> str | None:
    """Whose hourly share of YNAB reads the request spends (docs/ynab_budget.md): its
    principal's key; None for a call made without a request, or with nobody identified (the
    tool itself then refuses to run: `tokens.auth` fails closed)."""
    if context is None:
        return None
    try:
        return principal_key_of_request(context.request_context)
    except NoPrincipalError:
        return None


# What `Prompt.fn` holds, as the SDK types it (a plain or an async function), and what it returns.
PromptReturn = PromptResult | Awaitable[PromptResult]
PromptFunction = Callable[..., PromptReturn]


def _refusals_answered(fn: PromptFunction) -> Callable[..., Awaitable[PromptReturn]]:
    """`fn`, with a refusal (`Refusal`, `YnabError`) raised as the invalid-params error the
    client gets, carrying exactly its sentence (the SDK passes `MCPError` on unchanged).

    A prompt function may be plain or async, as the SDK allows: a plain one runs in a worker
    thread, as the SDK would run it (the wrapper is async, so the SDK no longer does)."""

    @functools.wraps(fn)
    async def answered(**arguments: Any) -> PromptReturn:
        try:
            if is_async_callable(fn):
                return await fn(**arguments)
            return await anyio.to_thread.run_sync(functools.partial(fn, **arguments))
        except (Refusal, YnabError) as refused:
            raise MCPError(code=INVALID_PARAMS, message=str(refused)) from None

    return answered


async def _set_level(ctx: ServerRequestContext[Any], params: SetLevelRequestParams) -> EmptyResult:
    logger.debug("Client asked for log messages at %s and above; avenir-mcp sends none.", params.level)
    return EmptyResult()
