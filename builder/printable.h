// Text from files (tensor names, dict keys, ONNX attribute strings, messages quoting them) made
// safe to print on a terminal: the one helper every place that prints such a name goes through
// (`show`, error messages, summaries, `ops`).
#pragma once

#include <string>

namespace torch2onnx {

// `s` with what a terminal would act on written as escapes: control characters (ESC, newline,
// carriage return, backspace, ...) as \n, \r, \t, \e or \xNN; C1 controls (U+0080-U+009F) and the
// bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069) as \u{XXXX}; bytes that are
// not UTF-8 as \xNN. Backslashes and every other character stay as they are.
// With keep_newlines, '\n' stays (a multi-line message of our own whose parts were escaped).
// Example: printable("y\x1b[2Jz\n") == "y\\e[2Jz\\n".
std::string printable(const std::string &s, bool keep_newlines = false);

} // namespace torch2onnx
