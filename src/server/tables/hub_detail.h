// What the hub's source files share: the JSON of replies, requests, tables
// and game states (the replies and requests with the community's too). Not
// for use outside the server's parts.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "server/clean_text.h"
#include "server/tables/hub.h"
#include "server/tables/table.h"

namespace makruk::server::detail {

constexpr int64_t MINUTE_MS = 60000;

std::string hex(const unsigned char* p, size_t n);

// Replies: a JSON body with its outcome; an error as {"error", "code", "msg",
// "args"}: the English text, the code, and the message's id and parameters
// (core/messages.h), which the client words in the reader's language.
Answer reply(Outcome outcome, const boost::json::value& v);
void add_message(boost::json::object& o, const Message& m);  // "msg" and "args"
boost::json::object error_json(std::string_view code, const Message& m);
boost::json::object error_json(const Error& e);
Answer error_reply(const Error& e);
Answer bad_request(Message why);
Answer storage_failed(const std::exception& e);
Answer storage_failed(std::exception_ptr error);
// The answer of a request made with a Respond, when it came before `ask`
// returned (a hub that writes at once: tests, tools); throws otherwise.
Answer answered_at_once(const std::function<void(std::function<void(Answer)>)>& ask);
Answer rate_limited(Msg what);  // a limit.* message

// A request's JSON object, or why not; its fields, false when of the wrong
// type (absent is fine: `out` keeps its value).
std::optional<boost::json::object> parse_object(const std::string& text, Message& why);
bool get_string(const boost::json::object& o, const char* key, std::string& out);
bool get_bool(const boost::json::object& o, const char* key, bool& out);
bool get_int(const boost::json::object& o, const char* key, int64_t& out, bool& present);
// A request's "clock" (the house rule: {"minutes": 1..180, "increment": 0..60
// seconds}, or null or absent: none) as ms, for a table or a tournament of
// `mode`; or why not.
std::optional<Message> get_clock(const boost::json::object& o, const std::string& mode, int64_t& clock_ms,
                                 int64_t& increment_ms);

// The invite link of a table (with its key), the table as the API shows it,
// the game now (for a state or an event), a game's whole state, the event
// of the actions after version `from`, and a message ready to send.
std::string invite_link(const std::string& base_url, const Table& p);
boost::json::object table_json(const Table& p);
boost::json::object game_now(const Table& p, const char* type);
boost::json::object state_json(const Table& p);
boost::json::object event_json(const Table& p, int from);
std::shared_ptr<const std::string> message(const boost::json::object& o);
// An error message on a WebSocket ({"t":"error", …}), answering message `id` if not empty.
std::shared_ptr<const std::string> error_message(const std::string& id, const Error& e);

}  // namespace makruk::server::detail
