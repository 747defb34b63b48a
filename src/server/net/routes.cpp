#include "server/net/routes.h"

#include <vector>

#include "server/tables/hub_detail.h"
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

using Handler = Answer (*)(Parts&, const Call&);
// A handler whose answer may come later (after the store's writer): it is
// given the Respond to call once.
using Later = void (*)(Parts&, const Call&, Hub::Respond);

struct Route {
  Method method;
  std::string_view pattern;  // segments; "{name}" takes any one segment, empty included
  Handler handle;
  Runs runs = Runs::OnHub;
  Later later = nullptr;  // instead of `handle`
};

const Route ROUTES[] = {
    {Method::Post, "/api/parties", nullptr, Runs::OnHub,
     [](Parts& p, const Call& c, Hub::Respond r) { p.hub.create_table(c.body(), c.ip(), std::move(r)); }},
    {Method::Get, "/api/parties/{code}", nullptr, Runs::OnHub,
     [](Parts& p, const Call& c, Hub::Respond r) {
       p.hub.get_table(c.code(), c.ip(), c.query("k"), c.query("proof"), std::move(r));
     }},
    {Method::Post, "/api/parties/{code}/join", nullptr, Runs::OnHub,
     [](Parts& p, const Call& c, Hub::Respond r) { p.hub.join(c.code(), c.body(), c.ip(), std::move(r)); }},
    {Method::Get, "/api/parties/{code}/qr.svg", nullptr, Runs::OnHub,
     [](Parts& p, const Call& c, Hub::Respond r) {
       p.hub.invite(c.code(), c.base(), c.ip(), c.query("k"), [r](InviteOrRefusal got) { r(invite_qr(got)); });
     }},
    {Method::Get, "/api/parties/{code}/event.ics", nullptr, Runs::OnHub,
     [](Parts& p, const Call& c, Hub::Respond r) {
       p.hub.invite(c.code(), c.base(), c.ip(), c.query("k"), [r](InviteOrRefusal got) { r(invite_calendar(got)); });
     }},
    {Method::Get, "/api/lobby", nullptr, Runs::OnLobby,
     [](Parts& p, const Call&, Hub::Respond r) {
       p.lobby.counts([r = std::move(r)](boost::json::object o) { r(detail::reply(Outcome::Ok, o)); });
     }},
    // The community's, on its own thread.
    {Method::Get, "/api/feedback", [](Parts& p, const Call&) { return p.community.feedback_list(); }, Runs::OnCommunity},
    {Method::Post, "/api/feedback", [](Parts& p, const Call& c) { return p.community.feedback_post(c.body(), c.ip()); },
     Runs::OnCommunity},
    {Method::Get, "/api/recommendations", [](Parts& p, const Call&) { return p.community.recommendations(); },
     Runs::OnCommunity},
    {Method::Post, "/api/recommendations",
     [](Parts& p, const Call& c) { return p.community.recommend(c.body(), c.ip(), p.seat_check); }, Runs::OnCommunity},
    {Method::Get, "/api/admin/feedback",
     [](Parts& p, const Call& c) { return p.community.admin_feedback_list(c.auth(), c.ip()); }, Runs::OnCommunity},
    {Method::Post, "/api/admin/feedback/{id}",
     [](Parts& p, const Call& c) { return p.community.admin_feedback_update(c.params.at(0), c.body(), c.auth(), c.ip()); },
     Runs::OnCommunity},
    {Method::Get, "/api/admin/recommendations",
     [](Parts& p, const Call& c) { return p.community.admin_recommendations(c.auth(), c.ip()); }, Runs::OnCommunity},
    {Method::Post, "/api/admin/recommendations/{id}",
     [](Parts& p, const Call& c) {
       return p.community.admin_recommendation_update(c.params.at(0), c.body(), c.auth(), c.ip());
     },
     Runs::OnCommunity},
    // Turn notifications', on their own thread.
    {Method::Post, "/api/my-games", nullptr, Runs::OnNotices,
     [](Parts& p, const Call& c, Hub::Respond r) { p.notices.my_games(c.body(), c.ip(), std::move(r)); }},
    {Method::Get, "/api/push/key", [](Parts& p, const Call&) { return p.notices.push_key(); }, Runs::OnNotices},
    {Method::Post, "/api/push/subscribe", nullptr, Runs::OnNotices,
     [](Parts& p, const Call& c, Hub::Respond r) { p.notices.subscribe(c.body(), c.ip(), std::move(r)); }},
    {Method::Post, "/api/push/unsubscribe", nullptr, Runs::OnNotices,
     [](Parts& p, const Call& c, Hub::Respond r) { p.notices.unsubscribe(c.body(), std::move(r)); }},
    // Tournaments', on their own thread ("{t}": a tournament's code, which
    // names no table).
    {Method::Post, "/api/tournaments",
     [](Parts& p, const Call& c) { return p.tournaments.create(c.body(), c.ip()); }, Runs::OnTournaments},
    {Method::Get, "/api/tournaments/{t}", [](Parts& p, const Call& c) { return p.tournaments.get(c.params.at(0), c.ip()); },
     Runs::OnTournaments},
    {Method::Post, "/api/tournaments/{t}/join",
     [](Parts& p, const Call& c) { return p.tournaments.join(c.params.at(0), c.body(), c.ip()); }, Runs::OnTournaments},
    {Method::Post, "/api/tournaments/{t}/act",
     [](Parts& p, const Call& c) { return p.tournaments.act(c.params.at(0), c.body(), c.ip()); }, Runs::OnTournaments},
    {Method::Get, "/api/tournaments/{t}/standings.csv",
     [](Parts& p, const Call& c) { return p.tournaments.standings_csv(c.params.at(0), c.ip()); }, Runs::OnTournaments},
    {Method::Get, "/api/tournaments/{t}/games.pgn",
     [](Parts& p, const Call& c) { return p.tournaments.games_pgn(c.params.at(0), c.ip()); }, Runs::OnTournaments},
    {Method::Get, "/api/tournaments/{t}/qr.svg",
     [](Parts& p, const Call& c) {
       const std::string link = p.tournaments.link(c.params.at(0), c.base(), c.ip());
       if (link.empty()) return p.tournaments.get(c.params.at(0), c.ip());  // its refusal
       return invite_qr(Invite{"", link, "", 0, 0});
     },
     Runs::OnTournaments},
    // Testing aids: without --test-clock, the hub answers that there is no such endpoint.
    {Method::Post, "/api/test/clock", [](Parts& p, const Call& c) { return p.hub.advance_clock(c.body()); }},
    {Method::Post, "/api/test/stall/{code}", [](Parts& p, const Call& c) { return p.hub.stall(c.body()); }},
    {Method::Get, "/readyz", nullptr, Runs::OnHub,
     [](Parts& p, const Call&, Hub::Respond r) { p.hub.ready(std::move(r)); }},
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

Answer error_body(Outcome outcome, std::string_view code, Msg message) {
  return Answer{outcome, error_json(code, message)};
}

Runs runs_on(const ApiRequest& r) {
  const auto path = segments(r.path);
  std::vector<std::string> params;
  for (const Route& route : ROUTES)
    if (route.method == r.method && fits(route.pattern, path, params)) return route.runs;
  return Runs::OnHub;
}

std::string table_code(const ApiRequest& r) {
  const auto path = segments(r.path);
  std::vector<std::string> params;
  for (const Route& route : ROUTES)
    if (route.method == r.method && fits(route.pattern, path, params))
      return route.pattern.find("{code}") != std::string_view::npos ? normalise_code(params.at(0)) : "";
  return "";
}

void answer(Parts& parts, const ApiRequest& r, Hub::Respond respond) {
  const auto path = segments(r.path);
  bool known_path = false;
  Call call{r, {}};
  for (const Route& route : ROUTES) {
    if (!fits(route.pattern, path, call.params)) continue;
    if (route.method == r.method) {
      if (route.later) return route.later(parts, call, std::move(respond));
      return respond(route.handle(parts, call));
    }
    known_path = true;
  }
  if (known_path) return respond(error_body(Outcome::MethodRefused, "bad-request", Msg::MethodRefused));
  respond(error_body(Outcome::NotFound, "not-found", Msg::NoEndpoint));
}

Answer answer(Parts& parts, const ApiRequest& r) {
  return detail::answered_at_once([&](Hub::Respond respond) { answer(parts, r, std::move(respond)); });
}

}  // namespace makruk::server::routes
