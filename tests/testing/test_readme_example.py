"""The README's example, verbatim: a scripted tool loop with a mid-stream 503 on the second turn."""

from google import genai
from google.genai import errors, types

MODEL = "gemini-2.5-flash"
WEATHER = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            description="Current weather for a city",
            parameters=types.Schema(type="OBJECT", properties={"city": types.Schema(type="STRING")}),
        )
    ]
)


def weather_report(client: genai.Client, question: str) -> str:
    """The code under test: one tool round trip, retrying a stream that fails part-way."""
    config = types.GenerateContentConfig(
        tools=[WEATHER], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
    )
    contents = [types.Content(role="user", parts=[types.Part(text=question)])]
    first = client.models.generate_content(model=MODEL, contents=contents, config=config)
    call = first.function_calls[0]
    result = types.Part.from_function_response(name=call.name, response={"temp_c": 21, "sky": "clear"})
    contents += [first.candidates[0].content, types.Content(role="user", parts=[result])]
    for _ in range(3):
        try:
            stream = client.models.generate_content_stream(model=MODEL, contents=contents, config=config)
            return "".join(chunk.text for chunk in stream)
        except errors.ServerError:
            continue  # the stream broke: ask again
    raise RuntimeError("no answer")


def test_tool_loop_survives_a_midstream_503(gemini):
    gemini.script(
        {"match": {"turn": 0}, "functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
        {
            "match": {"hasFunctionResponse": True},
            "chunks": ["It is 21°C ", "and clear."],
            "errorAfterChunks": 1,
            "error": "unavailable",
        },
        {"match": {"hasFunctionResponse": True}, "chunks": ["It is 21°C ", "and clear."]},
    )

    assert weather_report(gemini.client, "What's the weather in Paris?") == "It is 21°C and clear."

    calls = gemini.journal()
    assert calls.statuses == [200, 200, 200]  # the 503 came mid-stream, after a 200
    assert calls[0].user_text == "What's the weather in Paris?"
    assert (
        calls[1].function_responses
        == calls[2].function_responses
        == [{"name": "get_weather", "response": {"temp_c": 21, "sky": "clear"}}]
    )
    assert calls[1].record["response"].endswith('"status": "UNAVAILABLE"\n  }\n}\n')  # production's error tail
    assert calls[2].entry == "entry-2" and '"error"' not in calls[2].record["response"]


def test_readme_shows_exactly_this_example():
    from pathlib import Path

    here = Path(__file__)
    readme = (here.parents[2] / "README.md").read_text(encoding="utf-8")
    code = here.read_text(encoding="utf-8").split('"""', 2)[2].lstrip()
    example = code.split("\n\n\ndef test_readme_shows_exactly_this_example")[0] + "\n"
    assert f"```python\n{example}```" in readme
