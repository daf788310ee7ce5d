"""Screening one message line: each refusal is the JSON-RPC error it is, with the id."""

import io
import json
import time

from repoctx.server.wire_guard import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_DEPTH,
    PARSE_ERROR,
    read_line,
    screen,
)


def request(arguments, ident=7) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                       "params": {"name": "search", "arguments": arguments}}).encode()


def nested(depth: int) -> bytes:
    return request({"q": "HERE"}).replace(b'"HERE"', b"[" * depth + b"]" * depth)


def test_a_well_formed_call_is_taken():
    assert screen(request({"query": "save", "paths": ["a.py"] * 50})) is None
    assert screen(b"\n") is None


def test_nesting_past_the_bound_is_invalid_params_with_the_id():
    assert screen(nested(MAX_DEPTH - 6)) is None
    for depth in (MAX_DEPTH + 1, 900, 100_000):
        refusal = screen(nested(depth))
        assert (refusal.code, refusal.id) == (INVALID_PARAMS, 7), depth
        assert "nested too deep" in refusal.message


def test_a_lone_surrogate_and_bytes_not_utf8_are_parse_errors():
    surrogate = request({"query": "x"}).replace(b'"x"', b'"\\ud800"')
    assert (screen(surrogate).code, screen(surrogate).id) == (PARSE_ERROR, 7)
    key = request({"query": "x"}).replace(b'"query"', b'"\\udfff"')
    assert screen(key).code == PARSE_ERROR
    assert screen(request({"query": "\U0001f600"})) is None  # a surrogate pair is text
    not_utf8 = request({"query": "x"}).replace(b'"x"', b'"\xff"')
    assert (screen(not_utf8).code, screen(not_utf8).id) == (PARSE_ERROR, 7)


def test_not_json_is_a_parse_error_with_the_id_read_from_the_head():
    assert screen(b'{"jsonrpc": "2.0", "id": "a-1", "method": ').id == "a-1"
    assert screen(b'{"jsonrpc":"2.0","id":1,"method":"x","params":NaN}').code == PARSE_ERROR
    assert screen(b"not json").id is None


def test_json_that_is_no_jsonrpc_message_is_an_invalid_request():
    refusal = screen(b'{"jsonrpc": "2.0", "id": 5}')
    assert (refusal.code, refusal.id) == (INVALID_REQUEST, 5)


def test_too_many_values_are_refused_without_walking_them():
    start = time.perf_counter()
    refusal = screen(request({"paths": [1] * 1_000_000}))
    assert (refusal.code, refusal.id) == (INVALID_PARAMS, 7)
    assert "too big" in refusal.message
    assert time.perf_counter() - start < 2.0


def test_an_over_long_line_is_cut_skipped_and_refused_with_its_id():
    big = request({"paths": ["src/app.py"] * 1_000_000})
    wire = io.BytesIO(big + b"\n" + request({"query": "next"}, 8) + b"\n")
    line, cut = read_line(wire)
    assert cut and len(line) < len(big)
    refusal = screen(line, cut)
    assert (refusal.code, refusal.id) == (INVALID_PARAMS, 7)
    assert "too large" in refusal.message
    line, cut = read_line(wire)
    assert not cut and screen(line) is None and json.loads(line)["id"] == 8
    assert read_line(wire) == (b"", False)


def test_a_refusal_is_a_jsonrpc_error_response():
    response = screen(nested(100_000)).response()
    assert response["jsonrpc"] == "2.0" and response["id"] == 7
    assert response["error"]["code"] == INVALID_PARAMS
