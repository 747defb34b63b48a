#include "messages.h"

#include <algorithm>
#include <cstdio>

namespace makruk {

namespace {

struct Entry {
  Msg msg;
  std::string_view id;
  std::string_view english;
};

constexpr Entry CATALOGUE[] = {
#define MAKRUK_MESSAGE_ENTRY(name, id, english) {Msg::name, id, english},
    MAKRUK_MESSAGES(MAKRUK_MESSAGE_ENTRY)
#undef MAKRUK_MESSAGE_ENTRY
};

// Parameters that hold numbers, by name; `reason` holds a message.
bool number_param(std::string_view name) {
  for (std::string_view n : {"rank", "number", "n", "line", "min", "max", "seconds", "version", "sent"})
    if (name == n) return true;
  return false;
}

// One placeholder of a template: the name and, for a choice, what follows the
// name ("white:White|black:Black").
struct Placeholder {
  std::string_view name, choices;
};

// Walks a template: `text` for the plain runs (braces unescaped), `hole` for each placeholder.
template <typename Text, typename Hole>
void walk(std::string_view t, Text text, Hole hole) {
  size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    if ((c == '{' || c == '}') && i + 1 < t.size() && t[i + 1] == c) {
      text(t.substr(i, 1));
      i += 2;
      continue;
    }
    if (c == '{') {
      const size_t end = t.find('}', i);
      if (end == std::string_view::npos) {
        text(t.substr(i));
        return;
      }
      std::string_view inside = t.substr(i + 1, end - i - 1);
      const size_t bar = inside.find('|');
      hole(Placeholder{inside.substr(0, bar), bar == std::string_view::npos ? "" : inside.substr(bar + 1)});
      i = end + 1;
      continue;
    }
    size_t j = i + 1;
    while (j < t.size() && t[j] != '{' && t[j] != '}') ++j;
    text(t.substr(i, j - i));
    i = j;
  }
}

// The words a choice gives for `value`: the one named, else `*`'s, else the value.
std::string_view choose(std::string_view choices, std::string_view value, bool& found) {
  std::string_view any;
  bool hasAny = false;
  found = true;
  while (!choices.empty()) {
    const size_t bar = choices.find('|');
    std::string_view item = choices.substr(0, bar);
    choices = bar == std::string_view::npos ? "" : choices.substr(bar + 1);
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) continue;
    if (item.substr(0, colon) == value) return item.substr(colon + 1);
    if (item.substr(0, colon) == "*") any = item.substr(colon + 1), hasAny = true;
  }
  found = hasAny;
  return any;
}

void quote(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

const Entry& entry(Msg m) { return CATALOGUE[size_t(m)]; }

}  // namespace

Message::Arg::Arg(std::string name, std::string_view text) : name(std::move(name)), text(text) {}
Message::Arg::Arg(std::string name, int64_t n) : name(std::move(name)), text(std::to_string(n)), number(true) {}
Message::Arg::Arg(std::string name, Message m)
    : name(std::move(name)), text(m.english()), nested(std::make_shared<const Message>(std::move(m))) {}

const Message::Arg* Message::arg(std::string_view name) const {
  for (const Arg& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

std::string Message::english() const { return format_message(message_template(id), args); }

std::string Message::json() const {
  std::string out = "{\"msg\":";
  quote(out, message_id(id));
  out += ",\"args\":{";
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    if (i) out += ',';
    quote(out, a.name);
    out += ':';
    if (a.nested) {
      std::string inner = a.nested->json();
      inner.pop_back();  // its "error" goes in too: the English of an id a reader may not know
      out += inner + ",\"error\":";
      quote(out, a.text);
      out += '}';
    } else if (a.number) {
      out += a.text;
    } else {
      quote(out, a.text);
    }
  }
  return out + "}}";
}

bool Why::operator()(Message m) const {
  if (text_) *text_ = m.english();
  if (message_) *message_ = std::move(m);
  return false;
}

size_t message_count() { return std::size(CATALOGUE); }
Msg message_at(size_t i) { return CATALOGUE[i].msg; }
std::string_view message_id(Msg m) { return entry(m).id; }
std::string_view message_template(Msg m) { return entry(m).english; }

bool message_by_id(std::string_view id, Msg& out) {
  for (const Entry& e : CATALOGUE)
    if (e.id == id) {
      out = e.msg;
      return true;
    }
  return false;
}

std::vector<MessageParam> message_params(Msg m) {
  std::vector<MessageParam> params;
  walk(
      message_template(m), [](std::string_view) {},
      [&](Placeholder p) {
        auto it = std::find_if(params.begin(), params.end(), [&](const MessageParam& q) { return q.name == p.name; });
        if (it == params.end()) {
          const std::string kind = p.name == "reason" ? "message" : number_param(p.name) ? "number" : "text";
          params.push_back(MessageParam{std::string(p.name), kind, {}});
          it = params.end() - 1;
        }
        if (p.choices.empty() || it->kind == "number") return;
        it->kind = "choice";
        for (std::string_view rest = p.choices; !rest.empty();) {
          const size_t bar = rest.find('|');
          std::string_view item = rest.substr(0, bar);
          rest = bar == std::string_view::npos ? "" : rest.substr(bar + 1);
          std::string key(item.substr(0, item.find(':')));
          if (key != "*" && std::find(it->choices.begin(), it->choices.end(), key) == it->choices.end())
            it->choices.push_back(key);
        }
      });
  return params;
}

std::string format_message(std::string_view tmpl, const std::vector<Message::Arg>& args) {
  std::string out;
  walk(
      tmpl, [&](std::string_view s) { out += s; },
      [&](Placeholder p) {
        const Message::Arg* a = nullptr;
        for (const Message::Arg& x : args)
          if (x.name == p.name) a = &x;
        if (!a) return;
        bool found = false;
        std::string_view words = p.choices.empty() ? std::string_view() : choose(p.choices, a->text, found);
        out += found ? words : std::string_view(a->text);
      });
  return out;
}

std::string messages_json() {
  std::string out = "[";
  for (size_t i = 0; i < message_count(); ++i) {
    const Msg m = message_at(i);
    out += i ? ",\n" : "\n";
    out += "{\"id\":";
    quote(out, message_id(m));
    out += ",\"english\":";
    quote(out, message_template(m));
    out += ",\"params\":[";
    const auto params = message_params(m);
    for (size_t k = 0; k < params.size(); ++k) {
      if (k) out += ',';
      out += "{\"name\":";
      quote(out, params[k].name);
      out += ",\"kind\":";
      quote(out, params[k].kind);
      if (params[k].kind == "choice") {
        out += ",\"choices\":[";
        for (size_t c = 0; c < params[k].choices.size(); ++c) {
          if (c) out += ',';
          quote(out, params[k].choices[c]);
        }
        out += ']';
      }
      out += '}';
    }
    out += "]}";
  }
  return out + "\n]\n";
}

}  // namespace makruk
