// Text checks and escapes for names read from files and for messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace onnxtrim::support {

// True when s is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool valid_utf8(std::string_view s);

// s with every byte that is not printable written as \xNN: control characters and bytes that
// are not part of well-formed UTF-8. Well-formed UTF-8 text (any language) stays as it is.
std::string printable(std::string_view s);

// s cut at every `sep` (n separators give n + 1 pieces; an empty s gives none).
std::vector<std::string> split(std::string_view s, char sep);

}  // namespace onnxtrim::support
