// What people write that others read: a display name (one line, short) and
// a text (the feedback board, a recommendation, a reply). Both are checked
// the same way, so that neither can look empty, flip the text around it, run
// into the lines above and below, or pass for another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/messages.h"

namespace makruk::server {

constexpr size_t MAX_NAME = 24;  // characters (code points); the web form allows the same
// Combining marks in a row on one letter: Thai and Khmer need at most four;
// more stack up over and under the lines around ("zalgo").
constexpr size_t MAX_MARKS_IN_A_ROW = 6;

// A display name: trimmed, 1 to MAX_NAME characters of well-formed UTF-8,
// without control, direction or line-breaking characters, at least one of
// them visible, at most MAX_MARKS_IN_A_ROW marks on a letter. Otherwise
// nothing, and `why` says what is wrong (name.*).
std::optional<std::string> clean_name(const std::string& raw, Message& why);

// A text: the same, on several lines (line feeds and tabs allowed), trimmed
// of blank lines too, 1 to `max` characters (text.*).
std::optional<std::string> clean_text(const std::string& raw, size_t max, Message& why);

// Code points that show nothing by themselves (spaces, joiners, fillers,
// variation selectors and other format characters); direction marks,
// embeddings, overrides and isolates; line and paragraph separators; marks
// that combine with the character before.
bool invisible(uint32_t cp);
bool direction_control(uint32_t cp);
bool breaks_the_line(uint32_t cp);
bool combining_mark(uint32_t cp);

}  // namespace makruk::server
