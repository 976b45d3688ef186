// Records V8 JSON.parse messages (Node 20) for tests/unit/test_v4_engine.py:
//   node gen_v8_json_parse_errors.js > v8_json_parse_errors.json
const cases = ['{', '[', '-', '1.', '1e', '01', '"a\\x"', '"\\u12G4"', '"a\nb"', '{"a"', '{"a":', '{"a":1', '[1', 'trx', 'nul', 'NaN', 'Infinity', '-Infinity', '[1,]', '{,}', '{"a":1,', '  x', '[1 2]', '{"a":1 "b":2}', '"\\', '1 2', 'xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaax', '[-]', '[1.e5]', '[.5]', '+1', '{"a":tru}', '[fals]','[truee]', '["\t"]', '[1e+]', '-01', '-a', '{"a":-}', '[0x10]', 'undefined', '[object Object]', '{}x', '{} x', '"abc', '[,]', '{"a":1}}',
 'x234567890123456789', 'x2345678901234567890', 'x23456789012345678901', 'x234567890123456789012',
 '0123456789x123456789', '0123456789x1234567890', '0123456789x12345678901', '01234567890x123456789012345', '{"id": "a", "input": "b", x}', '{"id": "a", "input": "b", "c": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], y}',
 '{"a": "😀", x}', '😀', '"😀" 😀', '[1,2,3,4,5,6,7,8,9,10,😀]', '{"a":"b"} // comment', "{'a': 1}", '{"a": undefined}', '{"a": True}', '[1,2,3]]', 'tru', 'true false', '[\u00a0]', '{"a":"\\u00"}', '"\\ud800"'];
const out = cases.map((s) => { try { JSON.parse(s); return [s, null]; } catch (e) { return [s, e.message]; } });
console.log(JSON.stringify(out));
