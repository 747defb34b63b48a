#include "server/tables/turn_notices.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "server/tables/hub_detail.h"

namespace makruk::server {

namespace json = boost::json;
using namespace detail;

TurnNotices::TurnNotices(Tables tables, std::function<int64_t()> now)
    : tables_(std::move(tables)), now_(std::move(now)) {}

void TurnNotices::set_bus(Bus* bus) {
  shared_ = bus != nullptr;
  subscribes_.share(bus, "subscribe");
}

void TurnNotices::opened(const std::string& code, std::vector<SubscriptionRecord> subscriptions) {
  for (SubscriptionRecord& s : subscriptions) subscriptions_[code].push_back(std::move(s));
}

void TurnNotices::notify(const Table& p, int actor, const std::string& kind) {
  if (!p.turn_based() || !deliver_) return;
  // What each seat is told, from the table as it is now.
  std::vector<Push> pushes;
  const std::string actorName = actor >= 0 && size_t(actor) < p.seats().size() ? p.seats()[size_t(actor)].name : "";
  const LiveGame* g = p.game() ? &*p.game() : nullptr;
  auto tell = [&](int seat, const std::string& what, const std::string& opponent, const std::string& move) {
    Push push{seat, what, opponent, move, g && g->game.over(), {}, {}};
    if (push.over) {
      push.result = std::string(result_string(g->game.result()));
      push.reason = std::string(reason_string(g->game.reason()));
    }
    pushes.push_back(std::move(push));
  };
  if (kind == "expired") {
    for (int seat = 0; seat < int(p.seats().size()) && seat < 2; ++seat) tell(seat, "expired", "", "");
  } else if (!g || kind == "decline-rematch") {
    return;
  } else if (kind == "rematch" && p.rematch_offer() == actor) {  // an offer, not yet a game
    tell(1 - actor, "rematch", actorName, "");
  } else {
    std::string move = kind == "move" && !g->san.empty() ? g->san.back() : "";
    if (g->game.over()) {
      for (int seat = 0; seat < 2; ++seat)
        if (seat != actor) tell(seat, "over", actorName, move);
    } else if (int toMove = g->seat_of(g->game.position().side_to_move()); toMove != actor) {
      tell(toMove, "turn", actorName, move);
    }
  }
  if (pushes.empty()) return;
  const std::string code = p.code();
  if (!shared_) {  // one instance: every subscription was made here
    if (auto it = subscriptions_.find(code); it != subscriptions_.end()) deliver(code, pushes, it->second);
    return;
  }
  // With other instances, the table's subscriptions are read again (a
  // browser may have subscribed at another one), off this thread.
  auto read = std::make_shared<std::vector<SubscriptionRecord>>();
  writer_->submit(
      code, [read, code](Store& store) { *read = store.load_subscriptions(code); },
      [this, read, code, pushes = std::move(pushes)](std::exception_ptr error) {
        if (!error) {
          if (tables_.in_memory(code)) {
            if (read->empty()) subscriptions_.erase(code);
            else subscriptions_[code] = *read;
          }
          return deliver(code, pushes, *read);
        }
        // The store away: what this instance knows will do.
        if (auto it = subscriptions_.find(code); it != subscriptions_.end()) deliver(code, pushes, it->second);
      });
}

void TurnNotices::deliver(const std::string& code, const std::vector<Push>& pushes,
                  const std::vector<SubscriptionRecord>& subscriptions) {
  for (const Push& push : pushes)
    for (const SubscriptionRecord& s : subscriptions) {
      if (s.seat != push.seat) continue;
      json::object payload{{"kind", push.kind}, {"code", code}, {"url", "/p/" + code}, {"lang", s.lang}};
      payload["opponent"] = push.opponent.empty() ? json::value(nullptr) : json::value(push.opponent);
      payload["move"] = push.move.empty() ? json::value(nullptr) : json::value(push.move);
      payload["result"] = push.over ? json::value(push.result) : json::value(nullptr);
      payload["reason"] = push.over ? json::value(push.reason) : json::value(nullptr);
      webpush::Delivery d;
      d.to = webpush::Subscription{s.endpoint, s.p256dh, s.auth};
      d.payload = json::serialize(payload);
      d.topic = code;
      d.group = code;
      d.urgency = push.kind == "turn" ? "normal" : "low";
      deliver_(std::move(d));
    }
}

void TurnNotices::set_push(std::string public_key, std::function<void(webpush::Delivery)> deliver, bool allow_http) {
  public_key_ = std::move(public_key);
  deliver_ = std::move(deliver);
  allow_http_ = allow_http;
}

Answer TurnNotices::push_key() const {
  if (public_key_.empty())
    return reply(Outcome::Unavailable, error_json("unavailable", Msg::PushUnavailable));
  return reply(Outcome::Ok, json::object{{"publicKey", public_key_}});
}

namespace {

// The (code, token) pairs of a request, at most 100.
std::optional<std::vector<std::pair<std::string, std::string>>> table_list(const json::object& o, Message& why) {
  std::vector<std::pair<std::string, std::string>> out;
  auto it = o.find("tables");
  if (it == o.end()) return out;
  if (!it->value().is_array()) {
    why = Msg::PushTables;
    return std::nullopt;
  }
  const json::array& a = it->value().as_array();
  if (a.size() > 100) {
    why = Msg::PushTooManyTables;
    return std::nullopt;
  }
  for (const json::value& v : a) {
    std::string code, token;
    if (!v.is_object() || !get_string(v.as_object(), "code", code) || !get_string(v.as_object(), "token", token) ||
        code.empty() || token.empty() || code.size() > 16 || token.size() > 64) {
      why = Msg::PushTable;
      return std::nullopt;
    }
    std::pair<std::string, std::string> pair{normalise_code(std::move(code)), std::move(token)};
    if (std::find(out.begin(), out.end(), pair) == out.end()) out.push_back(std::move(pair));
  }
  return out;
}

// The subscriptions of `seat` (their endpoints) that a new one, `rec`,
// replaces: past `per_seat` browsers, the oldest; past `services` push
// services (browsers use a handful, and more only spread one seat's pushes
// over more services that may hang), the oldest at another service.
std::vector<std::string> to_replace(std::vector<SubscriptionRecord> list, const SubscriptionRecord& rec, int seat,
                                    size_t per_seat, size_t services) {
  std::vector<std::string> out;
  auto mine = [&](const SubscriptionRecord& s) { return s.seat == seat; };
  auto drop_oldest = [&](auto&& which) {
    auto oldest = list.end();
    for (auto it = list.begin(); it != list.end(); ++it)
      if (which(*it) && (oldest == list.end() || it->created_at < oldest->created_at)) oldest = it;
    if (oldest == list.end()) return false;
    out.push_back(oldest->endpoint);
    list.erase(oldest);
    return true;
  };
  const bool renewed = std::any_of(list.begin(), list.end(), [&](const SubscriptionRecord& s) {
    return mine(s) && s.endpoint == rec.endpoint;
  });
  if (!renewed && per_seat && size_t(std::count_if(list.begin(), list.end(), mine)) >= per_seat) drop_oldest(mine);
  const std::string origin = webpush::origin_of(rec.endpoint);
  auto elsewhere = [&](const SubscriptionRecord& s) { return mine(s) && webpush::origin_of(s.endpoint) != origin; };
  for (;;) {
    std::set<std::string> used{origin};
    for (const SubscriptionRecord& s : list)
      if (mine(s)) used.insert(webpush::origin_of(s.endpoint));
    if (!services || used.size() <= services || !drop_oldest(elsewhere)) break;
  }
  return out;
}

}  // namespace

void TurnNotices::subscribe(const std::string& body, const std::string& ip, Respond respond) {
  const bool reads = deliver_ && subscribes_.allow(ip, now_(), limits_.subscribe_per_minute, false);
  tables_.open_all(reads ? codes_to_read(body, ip) : std::vector<std::string>{},
                   [this, body, ip, respond = std::move(respond)]() mutable { store(body, ip, std::move(respond)); });
}

void TurnNotices::store(const std::string& body, const std::string& ip, Respond respond) {
  auto checked = check(body, ip);
  if (auto* refused = std::get_if<Answer>(&checked)) return respond(std::move(*refused));
  auto plan = std::make_shared<Plan>(std::move(std::get<Plan>(checked)));
  if (plan->seats.empty())
    return respond(reply(Outcome::Ok, json::object{{"subscribed", json::array{}},
                                           {"unknown", json::array(plan->unknown.begin(), plan->unknown.end())}}));
  // Written off this thread, on the first table's lane. Each seat keeps its
  // newest few browsers, at a few push services: a new one past a cap
  // replaces the oldest (with other instances, of those the store has).
  const bool shared = shared_;
  const size_t per_seat = limits_.per_seat, services = limits_.services_per_seat;
  writer_->submit(
      plan->seats.front().code,
      [plan, shared, per_seat, services](Store& store) {
        for (Plan::Seat& s : plan->seats) {
          if (shared) s.list = store.load_subscriptions(s.code);
          for (const std::string& endpoint : to_replace(s.list, plan->rec, s.seat, per_seat, services)) {
            store.remove_seat_subscription(endpoint, s.code, s.seat);
            std::erase_if(s.list, [&](const SubscriptionRecord& r) { return r.endpoint == endpoint && r.seat == s.seat; });
          }
          SubscriptionRecord rec = plan->rec;
          rec.code = s.code;
          rec.seat = s.seat;
          store.add_subscription(rec);
          std::erase_if(s.list, [&](const SubscriptionRecord& r) { return r.endpoint == rec.endpoint && r.seat == s.seat; });
          s.list.push_back(std::move(rec));
        }
      },
      [this, plan, respond = std::move(respond)](std::exception_ptr error) {
        if (error) return respond(storage_failed(error));
        json::array subscribed;
        for (Plan::Seat& s : plan->seats) {
          subscribed.push_back(json::value(s.code));
          if (!tables_.in_memory(s.code)) continue;
          // Of this seat, what the store now has; of the others, what this
          // instance knows (or, with other instances, what the store had).
          auto& list = subscriptions_[s.code];
          std::erase_if(list, [&](const SubscriptionRecord& r) { return r.seat == s.seat || shared_; });
          for (SubscriptionRecord& r : s.list)
            if (r.seat == s.seat || shared_) list.push_back(std::move(r));
        }
        respond(reply(Outcome::Ok, json::object{{"subscribed", std::move(subscribed)},
                                        {"unknown", json::array(plan->unknown.begin(), plan->unknown.end())}}));
      });
}

std::variant<TurnNotices::Plan, Answer> TurnNotices::check(const std::string& body, const std::string& ip) {
  if (!deliver_) return push_key();
  if (!subscribes_.allow(ip, now_(), limits_.subscribe_per_minute)) return rate_limited(Msg::LimitSubscriptions);
  Message why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  auto tables = table_list(*o, why);
  if (!tables) return bad_request(why);
  std::string lang = "en";
  if (!get_string(*o, "lang", lang)) return bad_request(Msg::PushLang);
  if (lang != "th" && lang != "en" && lang != "km") lang = "en";
  auto sub = o->find("subscription");
  if (sub == o->end() || !sub->value().is_object()) return bad_request(Msg::PushSubscription);
  const json::object& so = sub->value().as_object();
  std::string endpoint, p256dh, auth;
  auto keys = so.find("keys");
  if (!get_string(so, "endpoint", endpoint) || keys == so.end() || !keys->value().is_object() ||
      !get_string(keys->value().as_object(), "p256dh", p256dh) || !get_string(keys->value().as_object(), "auth", auth))
    return bad_request(Msg::PushSubscriptionShape);
  std::string origin = webpush::origin_of(endpoint);
  if (endpoint.size() > 2048 || origin.empty()) return bad_request(Msg::PushEndpointUrl);
  if (!allow_http_) {
    if (origin.rfind("https://", 0) != 0) return bad_request(Msg::PushEndpointHttps);
    // Push services have public names: refuse addresses and local names, so
    // that the server cannot be made to post to its own network.
    std::string host = origin.substr(8);
    if (host.front() == '[') host = "[";  // an IPv6 literal
    else host = host.substr(0, host.find(':'));
    while (!host.empty() && host.back() == '.') host.pop_back();  // "localhost." is localhost
    // An address in any spelling (127.1, 0x7f.1, 2130706433) ends in a number;
    // a top-level domain never does. This is a first, clear answer only: the
    // sender checks the address it actually connects to.
    const std::string tld = host.substr(host.rfind('.') + 1);
    bool literal = host == "[" || tld.empty() || std::isdigit(static_cast<unsigned char>(tld[0]));
    auto ends = [&](std::string_view tail) { return host.size() >= tail.size() && host.ends_with(tail); };
    if (literal || host.find('.') == std::string::npos || ends(".local") || ends(".localhost") ||
        ends(".internal") || ends(".lan") || ends(".home.arpa"))
      return bad_request(Msg::PushEndpointPublic);
  }
  auto rawKey = webpush::b64url_decode(p256dh);
  auto rawAuth = webpush::b64url_decode(auth);
  if (!rawKey || !rawAuth || rawAuth->size() != 16) return bad_request(Msg::PushKeys);
  try {
    webpush::encrypt("", *rawKey, *rawAuth);  // refuses a key that is not a P-256 point
  } catch (const std::exception&) {
    return bad_request(Msg::PushP256dh);
  }
  Plan plan;
  plan.rec = SubscriptionRecord{endpoint, "", 0, p256dh, auth, lang, now_()};
  Seats seats;
  if (auto e = tables_.resolve_seats(*tables, ip, seats, plan.unknown)) return error_reply(*e);
  for (const auto& [p, seat] : seats) {
    auto it = subscriptions_.find(p->code());
    plan.seats.push_back({p->code(), seat, it == subscriptions_.end() ? std::vector<SubscriptionRecord>{} : it->second});
  }
  return plan;
}

void TurnNotices::unsubscribe(const std::string& body, Respond respond) {
  Message why;
  std::string endpoint;
  auto o = parse_object(body, why);
  if (!o) return respond(bad_request(why));
  if (!get_string(*o, "endpoint", endpoint) || endpoint.empty() || endpoint.size() > 2048)
    return respond(bad_request(Msg::PushEndpoint));
  // Removed off this thread (on the endpoint's lane), then forgotten here.
  auto removed = std::make_shared<int>(0);
  writer_->submit(
      endpoint, [removed, endpoint](Store& store) { *removed = store.remove_subscription(endpoint); },
      [this, removed, endpoint, respond = std::move(respond)](std::exception_ptr error) {
        if (error) return respond(storage_failed(error));
        forget_endpoint(endpoint);
        respond(reply(Outcome::Ok, json::object{{"removed", *removed}}));
      });
}

void TurnNotices::forget_endpoint(const std::string& endpoint) {
  for (auto it = subscriptions_.begin(); it != subscriptions_.end();) {
    std::erase_if(it->second, [&](const SubscriptionRecord& s) { return s.endpoint == endpoint; });
    it = it->second.empty() ? subscriptions_.erase(it) : std::next(it);
  }
}

void TurnNotices::drop(const std::string& endpoint) {
  forget_endpoint(endpoint);
  // Removed off this thread; when that fails it stays in storage, and is
  // dropped again after the next failed delivery.
  writer_->submit(endpoint, [endpoint](Store& store) { store.remove_subscription(endpoint); },
                  [](std::exception_ptr) {});
}

std::vector<std::string> TurnNotices::codes_to_read(const std::string& body, const std::string& ip) {
  Message why;
  auto o = parse_object(body, why);
  auto tables = o ? table_list(*o, why) : std::nullopt;
  std::vector<std::string> codes;
  if (tables && tables_.credential_lookup_allowed(ip))
    for (const auto& [code, token] : *tables) codes.push_back(code);
  return codes;
}

void TurnNotices::my_games(const std::string& body, const std::string& ip, Respond respond) {
  tables_.open_all(codes_to_read(body, ip), [this, body, ip, respond = std::move(respond)] { respond(games(body, ip)); });
}

Answer TurnNotices::games(const std::string& body, const std::string& ip) {
  Message why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  auto tables = table_list(*o, why);
  if (!tables) return bad_request(why);
  struct Entry {
    json::object o;
    int rank;
    int64_t at;
  };
  std::vector<Entry> entries;
  std::vector<std::string> unknown;
  Seats seats;
  if (auto e = tables_.resolve_seats(*tables, ip, seats, unknown)) return error_reply(*e);
  for (const auto& [p, seat] : seats) {
    const std::string& code = p->code();
    const TableRecord& r = p->record();
    json::object e{{"code", code}, {"variant", r.variant}, {"mode", r.mode}, {"seat", seat}, {"status", p->status()}};
    int other = 1 - seat;
    e["opponent"] = size_t(other) < p->seats().size() ? json::value(p->seats()[size_t(other)].name) : json::value(nullptr);
    bool yourTurn = false;
    if (const auto& g = p->game()) {
      Color mine = g->color_of_seat(seat);
      yourTurn = !g->game.over() && !p->expired() && g->game.position().side_to_move() == mine;
      e["color"] = mine == WHITE ? "w" : "b";
      e["moves"] = g->san.size();
      e["lastMove"] = g->san.empty() ? json::value(nullptr) : json::value(g->san.back());
      e["result"] = result_string(g->game.result());
      e["reason"] = g->game.over() ? json::value(reason_string(g->game.reason())) : json::value(nullptr);
    } else {
      e["color"] = nullptr;
      e["moves"] = 0;
      e["lastMove"] = nullptr;
      e["result"] = "*";
      e["reason"] = nullptr;
    }
    e["yourTurn"] = yourTurn;
    e["lastMoveAt"] = p->last_activity();
    e["expiresAt"] = p->expires_at() ? json::value(p->expires_at()) : json::value(nullptr);
    e["startsAt"] = r.starts_at ? json::value(r.starts_at) : json::value(nullptr);
    std::string status = p->status();
    int rank = yourTurn ? 0 : status == "playing" ? 1 : status == "ready" || status == "waiting" ? 2 : 3;
    entries.push_back({std::move(e), rank, p->last_activity()});
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.rank != b.rank ? a.rank < b.rank : a.at > b.at; });
  json::array games;
  for (Entry& e : entries) games.push_back(std::move(e.o));
  return reply(Outcome::Ok, json::object{{"games", std::move(games)}, {"unknown", json::array(unknown.begin(), unknown.end())}});
}

}  // namespace makruk::server
