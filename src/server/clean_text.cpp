#include "server/clean_text.h"

#include "server/text.h"

namespace makruk::server {

bool invisible(uint32_t cp) {
  return cp <= 0x20 || cp == 0xA0 || cp == 0xAD || cp == 0x34F || cp == 0x61C || cp == 0x115F || cp == 0x1160 ||
         cp == 0x1680 || (cp >= 0x17B4 && cp <= 0x17B5) || (cp >= 0x180B && cp <= 0x180F) ||
         (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) ||
         cp == 0x2800 || cp == 0x3000 || cp == 0x3164 || (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF || cp == 0xFFA0 ||
         (cp >= 0xFFF0 && cp <= 0xFFFB) || (cp >= 0x1D173 && cp <= 0x1D17A) || (cp >= 0xE0000 && cp <= 0xE0FFF);
}

bool direction_control(uint32_t cp) {
  return cp == 0x61C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

bool breaks_the_line(uint32_t cp) { return cp == 0x2028 || cp == 0x2029 || (cp >= 0xFFF9 && cp <= 0xFFFB); }

bool combining_mark(uint32_t cp) {
  struct Range {
    uint32_t first, last;
  };
  // Nonspacing and enclosing marks of the scripts people write here, and
  // the blocks of combining marks that any script can take.
  static constexpr Range marks[] = {
      {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x05BF, 0x05BF}, {0x05C1, 0x05C2}, {0x05C4, 0x05C5},
      {0x05C7, 0x05C7}, {0x0610, 0x061A}, {0x064B, 0x065F}, {0x0670, 0x0670}, {0x06D6, 0x06DC}, {0x06DF, 0x06E4},
      {0x06E7, 0x06E8}, {0x06EA, 0x06ED}, {0x0900, 0x0903}, {0x093A, 0x094F}, {0x0951, 0x0957}, {0x0962, 0x0963},
      {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E}, {0x0EB1, 0x0EB1}, {0x0EB4, 0x0EBC}, {0x0EC8, 0x0ECD},
      {0x0F71, 0x0F84}, {0x0F8D, 0x0FBC}, {0x102B, 0x103E}, {0x17B4, 0x17D3}, {0x17DD, 0x17DD}, {0x1AB0, 0x1AFF},
      {0x1DC0, 0x1DFF}, {0x20D0, 0x20FF}, {0xFE20, 0xFE2F}};
  for (const Range& r : marks)
    if (cp >= r.first && cp <= r.last) return true;
  return false;
}

namespace {

// The words a refusal uses, for a name or for a text.
struct Refusals {
  Msg utf8, control, direction, invisible, marks, length;
};

std::optional<std::string> clean(const std::string& raw, size_t max, bool lines, const Refusals& say, Message& why) {
  const char* blank = lines ? " \t\r\n" : " \t";
  const size_t b = raw.find_first_not_of(blank), e = raw.find_last_not_of(blank);
  std::string text = b == std::string::npos ? "" : raw.substr(b, e - b + 1);
  size_t chars = 0, marks = 0;
  bool visible = false;
  for (size_t i = 0; i < text.size(); ++chars) {
    const auto cp = next_code_point(text, i);
    if (!cp) {
      why = say.utf8;
      return std::nullopt;
    }
    const bool allowed_control = lines && (*cp == '\n' || *cp == '\t');
    if ((*cp < 0x20 && !allowed_control) || *cp == 0x7F || (*cp >= 0x80 && *cp < 0xA0)) {
      why = say.control;
      return std::nullopt;
    }
    if (direction_control(*cp) || breaks_the_line(*cp)) {
      why = say.direction;
      return std::nullopt;
    }
    marks = combining_mark(*cp) ? marks + 1 : 0;
    if (marks > MAX_MARKS_IN_A_ROW) {
      why = {say.marks, {{"max", MAX_MARKS_IN_A_ROW}}};
      return std::nullopt;
    }
    visible = visible || !invisible(*cp);
  }
  if (chars > 0 && !visible) {
    why = say.invisible;
    return std::nullopt;
  }
  if (chars == 0 || chars > max) {
    why = {say.length, {{"max", max}}};
    return std::nullopt;
  }
  return text;
}

}  // namespace

std::optional<std::string> clean_name(const std::string& raw, Message& why) {
  static constexpr Refusals say{Msg::NameUtf8,      Msg::NameControl, Msg::NameDirection,
                                Msg::NameInvisible, Msg::NameMarks,   Msg::NameLength};
  return clean(raw, MAX_NAME, false, say, why);
}

std::optional<std::string> clean_text(const std::string& raw, size_t max, Message& why) {
  static constexpr Refusals say{Msg::TextUtf8,      Msg::TextControl, Msg::TextDirection,
                                Msg::TextInvisible, Msg::TextMarks,   Msg::TextLength};
  return clean(raw, max, true, say, why);
}

}  // namespace makruk::server
