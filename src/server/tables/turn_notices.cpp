#include "server/tables/turn_notices.h"

#include <algorithm>
#include <boost/json.hpp>
#include <iostream>
#include <set>

#include "server/tables/hub_detail.h"

namespace makruk::server {

namespace json = boost::json;
using namespace detail;

TurnNotices::TurnNotices(Tables tables, std::function<int64_t()> now, Post post)
    : tables_(std::move(tables)), now_(std::move(now)), post_(std::move(post)) {}

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
  // The table's subscriptions are read (a browser may have subscribed at
  // another instance) off this part's thread, then the pushes sent; when the
  // store is away, nothing is sent.
  post_([this, code = p.code(), pushes = std::move(pushes)]() mutable {
    auto read = std::make_shared<std::vector<SubscriptionRecord>>();
    writer_->submit(
        code, [read, code](Store& store) { *read = store.load_subscriptions(code); },
        [this, read, code, pushes = std::move(pushes)](std::exception_ptr error) {
          if (!error) return deliver(code, pushes, *read);
          try {
            std::rethrow_exception(error);
          } catch (const std::exception& e) {
            std::cerr << "makruk serve: table " << code << ": no push sent, its subscriptions not read: " << e.what()
                      << "\n";
          } catch (...) {
          }
        });
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
  auto checked = check(body, ip);
  if (auto* refused = std::get_if<Answer>(&checked)) return respond(std::move(*refused));
  Plan& plan = std::get<Plan>(checked);
  tables_.seats(std::move(plan.tables), ip,
                [this, rec = std::move(plan.rec), respond = std::move(respond)](Found found) mutable {
                  post_([this, rec = std::move(rec), found = std::move(found), respond = std::move(respond)]() mutable {
                    store(std::move(rec), std::move(found), std::move(respond));
                  });
                });
}

namespace {

// The codes that hold no seat, in the request's order.
json::array unknown_codes(TurnNotices::Found& found) {
  std::sort(found.unknown.begin(), found.unknown.end());
  json::array out;
  for (const auto& [index, code] : found.unknown) out.push_back(json::value(code));
  return out;
}

}  // namespace

void TurnNotices::store(SubscriptionRecord rec, Found found, Respond respond) {
  if (found.error) return respond(error_reply(*found.error));
  std::sort(found.seats.begin(), found.seats.end(), [](const Seat& a, const Seat& b) { return a.index < b.index; });
  json::array unknown = unknown_codes(found);
  if (found.seats.empty())
    return respond(reply(Outcome::Ok, json::object{{"subscribed", json::array{}}, {"unknown", std::move(unknown)}}));
  // Written off this thread, on the first table's lane. Each seat keeps its
  // newest few browsers, at a few push services: a new one past a cap
  // replaces the oldest of those the store has (some may have come through
  // other instances).
  auto seats = std::make_shared<std::vector<Seat>>(std::move(found.seats));
  const size_t per_seat = limits_.per_seat, services = limits_.services_per_seat;
  const std::string lane = seats->front().code;
  writer_->submit(
      lane,
      [seats, rec = std::move(rec), per_seat, services](Store& store) {
        for (const Seat& s : *seats) {
          const auto list = store.load_subscriptions(s.code);
          for (const std::string& endpoint : to_replace(list, rec, s.seat, per_seat, services))
            store.remove_seat_subscription(endpoint, s.code, s.seat);
          SubscriptionRecord mine = rec;
          mine.code = s.code;
          mine.seat = s.seat;
          store.add_subscription(mine);
        }
      },
      [seats, unknown = std::move(unknown), respond = std::move(respond)](std::exception_ptr error) mutable {
        if (error) return respond(storage_failed(error));
        json::array subscribed;
        for (const Seat& s : *seats) subscribed.push_back(json::value(s.code));
        respond(reply(Outcome::Ok, json::object{{"subscribed", std::move(subscribed)}, {"unknown", std::move(unknown)}}));
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
  return Plan{SubscriptionRecord{endpoint, "", 0, p256dh, auth, lang, now_()}, std::move(*tables)};
}

void TurnNotices::unsubscribe(const std::string& body, Respond respond) {
  Message why;
  std::string endpoint;
  auto o = parse_object(body, why);
  if (!o) return respond(bad_request(why));
  if (!get_string(*o, "endpoint", endpoint) || endpoint.empty() || endpoint.size() > 2048)
    return respond(bad_request(Msg::PushEndpoint));
  // Removed off this thread (on the endpoint's lane).
  auto removed = std::make_shared<int>(0);
  writer_->submit(
      endpoint, [removed, endpoint](Store& store) { *removed = store.remove_subscription(endpoint); },
      [removed, respond = std::move(respond)](std::exception_ptr error) {
        if (error) return respond(storage_failed(error));
        respond(reply(Outcome::Ok, json::object{{"removed", *removed}}));
      });
}

void TurnNotices::drop(const std::string& endpoint) {
  // Removed off this thread; when that fails it stays in storage, and is
  // dropped again after the next failed delivery.
  writer_->submit(endpoint, [endpoint](Store& store) { store.remove_subscription(endpoint); },
                  [](std::exception_ptr) {});
}

void TurnNotices::my_games(const std::string& body, const std::string& ip, Respond respond) {
  Message why;
  auto o = parse_object(body, why);
  if (!o) return respond(bad_request(why));
  auto tables = table_list(*o, why);
  if (!tables) return respond(bad_request(why));
  tables_.seats(std::move(*tables), ip, [respond = std::move(respond)](Found found) mutable {
    if (found.error) return respond(error_reply(*found.error));
    // Those whose turn it is first, then those being played, then those
    // not started, then the others; the latest move first within each.
    auto rank = [](const Seat& s) {
      const json::object& g = s.game;
      if (g.at("yourTurn").as_bool()) return 0;
      const auto& status = g.at("status").as_string();
      return status == "playing" ? 1 : status == "ready" || status == "waiting" ? 2 : 3;
    };
    auto at = [](const Seat& s) { return s.game.at("lastMoveAt").to_number<int64_t>(); };
    std::sort(found.seats.begin(), found.seats.end(), [&](const Seat& a, const Seat& b) {
      if (rank(a) != rank(b)) return rank(a) < rank(b);
      if (at(a) != at(b)) return at(a) > at(b);
      return a.index < b.index;
    });
    json::array games;
    for (Seat& s : found.seats) games.push_back(std::move(s.game));
    respond(reply(Outcome::Ok, json::object{{"games", std::move(games)}, {"unknown", unknown_codes(found)}}));
  });
}

json::object TurnNotices::game_of(const Table& p, int seat) {
  const TableRecord& r = p.record();
  json::object e{{"code", p.code()}, {"variant", r.variant}, {"mode", r.mode}, {"seat", seat}, {"status", p.status()}};
  int other = 1 - seat;
  e["opponent"] = size_t(other) < p.seats().size() ? json::value(p.seats()[size_t(other)].name) : json::value(nullptr);
  bool yourTurn = false;
  if (const auto& g = p.game()) {
    Color mine = g->color_of_seat(seat);
    yourTurn = !g->game.over() && !p.expired() && g->game.position().side_to_move() == mine;
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
  e["lastMoveAt"] = p.last_activity();
  e["expiresAt"] = p.expires_at() ? json::value(p.expires_at()) : json::value(nullptr);
  e["startsAt"] = r.starts_at ? json::value(r.starts_at) : json::value(nullptr);
  return e;
}

}  // namespace makruk::server
