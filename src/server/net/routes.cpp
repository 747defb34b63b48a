#include "server/net/routes.h"

#include <vector>

#include "server/text.h"

namespace makruk::server::routes {

namespace {

// A request matched to a route: its path's {parameters}, in order.
struct Call {
  const ApiRequest& r;
  std::vector<std::string> params;

  std::string body() const { return std::string(r.body); }
  std::string ip() const { return std::string(r.ip); }
  std::string auth() const { return std::string(r.authorization); }
  std::string base() const { return std::string(r.base_url); }
  std::string query(std::string_view name) const { return query_param(r.query, name); }
  // A table's code as typed (any case); a malformed one goes to the hub too,
  // so that it counts as a wrong guess.
  std::string code() const { return normalise_code(params.at(0)); }
};

using Handler = HttpReply (*)(Hub&, const Call&);

struct Route {
  Method method;
  std::string_view pattern;  // segments; "{name}" takes any one segment, empty included
  Handler handle;
};

const Route ROUTES[] = {
    {Method::Post, "/api/parties", [](Hub& h, const Call& c) { return h.create_party(c.body(), c.ip()); }},
    {Method::Get, "/api/parties/{code}",
     [](Hub& h, const Call& c) { return h.get_party(c.code(), c.ip(), c.query("k"), c.query("proof")); }},
    {Method::Post, "/api/parties/{code}/join", [](Hub& h, const Call& c) { return h.join(c.code(), c.body(), c.ip()); }},
    {Method::Get, "/api/parties/{code}/qr.svg",
     [](Hub& h, const Call& c) { return h.qr_svg(c.code(), c.base(), c.ip(), c.query("k")); }},
    {Method::Get, "/api/parties/{code}/event.ics",
     [](Hub& h, const Call& c) { return h.event_ics(c.code(), c.base(), c.ip(), c.query("k")); }},
    {Method::Post, "/api/my-games", [](Hub& h, const Call& c) { return h.my_games(c.body(), c.ip()); }},
    {Method::Get, "/api/lobby", [](Hub& h, const Call&) { return h.lobby(); }},
    {Method::Get, "/api/feedback", [](Hub& h, const Call&) { return h.feedback_list(); }},
    {Method::Post, "/api/feedback", [](Hub& h, const Call& c) { return h.feedback_post(c.body(), c.ip()); }},
    {Method::Get, "/api/recommendations", [](Hub& h, const Call&) { return h.recommendations(); }},
    {Method::Post, "/api/recommendations", [](Hub& h, const Call& c) { return h.recommend(c.body(), c.ip()); }},
    {Method::Get, "/api/admin/feedback", [](Hub& h, const Call& c) { return h.admin_feedback_list(c.auth(), c.ip()); }},
    {Method::Post, "/api/admin/feedback/{id}",
     [](Hub& h, const Call& c) { return h.admin_feedback_update(c.params.at(0), c.body(), c.auth(), c.ip()); }},
    {Method::Get, "/api/admin/recommendations",
     [](Hub& h, const Call& c) { return h.admin_recommendations(c.auth(), c.ip()); }},
    {Method::Post, "/api/admin/recommendations/{id}",
     [](Hub& h, const Call& c) { return h.admin_recommendation_update(c.params.at(0), c.body(), c.auth(), c.ip()); }},
    {Method::Get, "/api/push/key", [](Hub& h, const Call&) { return h.push_key(); }},
    {Method::Post, "/api/push/subscribe", [](Hub& h, const Call& c) { return h.push_subscribe(c.body(), c.ip()); }},
    {Method::Post, "/api/push/unsubscribe", [](Hub& h, const Call& c) { return h.push_unsubscribe(c.body()); }},
    {Method::Post, "/api/test/clock",
     [](Hub& h, const Call& c) {
       return h.test_clock_enabled() ? h.advance_clock(c.body()) : error_body(404, "not-found", Msg::NoEndpoint);
     }},
    {Method::Get, "/readyz", [](Hub& h, const Call&) { return h.ready(); }},
};

// The path's segments after the leading '/' ("/a/b/" gives "a", "b", "").
std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path.front() != '/') return out;
  path.remove_prefix(1);
  for (;;) {
    const size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) return out;
    path.remove_prefix(slash + 1);
  }
}

// Whether `path` fits `pattern`; its parameters into `params`.
bool fits(std::string_view pattern, const std::vector<std::string_view>& path, std::vector<std::string>& params) {
  const auto want = segments(pattern);
  if (want.size() != path.size()) return false;
  params.clear();
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i].size() >= 2 && want[i].front() == '{' && want[i].back() == '}') params.emplace_back(path[i]);
    else if (want[i] != path[i]) return false;
  }
  return true;
}

}  // namespace

std::string error_json(std::string_view code, Msg message) {
  const Message m(message);
  std::string body = m.json();  // {"msg":…,"args":{}}; these English texts hold no quotes
  body.insert(1, "\"error\":\"" + m.english() + "\",\"code\":\"" + std::string(code) + "\",");
  return body;
}

HttpReply error_body(int status, std::string_view code, Msg message) { return HttpReply{status, error_json(code, message)}; }

HttpReply answer(Hub& hub, const ApiRequest& r) {
  const auto path = segments(r.path);
  bool known_path = false;
  Call call{r, {}};
  for (const Route& route : ROUTES) {
    if (!fits(route.pattern, path, call.params)) continue;
    if (route.method == r.method) return route.handle(hub, call);
    known_path = true;
  }
  if (known_path) return error_body(405, "bad-request", Msg::MethodRefused);
  return error_body(404, "not-found", Msg::NoEndpoint);
}

}  // namespace makruk::server::routes
