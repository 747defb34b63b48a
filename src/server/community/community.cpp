// The community pages: the feedback board, recommendations and their
// maintainers' side (community.h).
#include "server/community/community.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>

#include "server/tables/hub_detail.h"
#include "server/text.h"

namespace makruk::server {

namespace json = boost::json;
using namespace detail;

// ---------------------------------------------------------------- the feedback board

namespace {

constexpr size_t MAX_FEEDBACK_TEXT = 2000;  // characters (code points)
constexpr int64_t HOUR_MS = 3600LL * 1000;
constexpr int64_t RECOMMENDATION_HOLD_MS = 24 * HOUR_MS;
constexpr long BURST_COUNTED = 5;  // recommendations counted at once within an hour

json::object feedback_json(const FeedbackRecord& f) {
  auto or_null = [](const std::string& v) { return v.empty() ? json::value(nullptr) : json::value(v); };
  json::object o{{"id", f.id},         {"kind", f.kind},     {"text", f.text},     {"lang", f.lang},
                 {"status", f.status}, {"createdAt", f.created_at}, {"hidden", f.hidden}};
  o["name"] = or_null(f.name);
  o["table"] = or_null(f.table);
  o["reply"] = or_null(f.reply);
  o["repliedAt"] = f.replied_at ? json::value(f.replied_at) : json::value(nullptr);
  return o;
}

json::object feedback_items(const std::vector<FeedbackRecord>& items) {
  json::array a;
  for (const FeedbackRecord& f : items) a.push_back(feedback_json(f));
  return json::object{{"items", std::move(a)}};
}

}  // namespace

Answer Community::feedback_post(const std::string& body, const std::string& ip) {
  std::lock_guard lock(mutex_);
  Message why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  FeedbackRecord f;
  std::string rawText, rawName, table;
  if (!get_string(*o, "kind", f.kind) || !get_string(*o, "text", rawText) || !get_string(*o, "name", rawName) ||
      !get_string(*o, "table", table) || !get_string(*o, "lang", f.lang))
    return bad_request(Msg::FieldType);
  if (f.kind != "bug" && f.kind != "feedback" && f.kind != "setting")
    return bad_request(Msg::FeedbackKind);
  auto text = clean_text(rawText, MAX_FEEDBACK_TEXT, why);
  if (!text) return bad_request(why);
  f.text = *text;
  if (!rawName.empty()) {
    auto name = clean_name(rawName, why);
    if (!name) return bad_request(why);
    f.name = *name;
  }
  if (!table.empty()) {
    table = normalise_code(table);
    if (table.size() != 6 || table.find_first_not_of(CODE_ALPHABET) != std::string::npos)
      return bad_request(Msg::FeedbackTable);
    f.table = table;
  }
  if (f.lang != "th" && f.lang != "en" && f.lang != "km") f.lang = "en";
  const int64_t t = now_();
  if (!posts_.allow(ip, t, per_minute_)) return rate_limited(Msg::LimitFeedback);
  f.created_at = t;
  try {
    store_.add_feedback(f);
  } catch (const std::exception& e) {
    return storage_failed(e);
  }
  return reply(Outcome::Created, json::object{{"item", feedback_json(f)}});
}

Answer Community::feedback_list() {
  std::lock_guard lock(mutex_);
  try {
    return reply(Outcome::Ok, feedback_items(store_.list_feedback(false, 200)));
  } catch (const std::exception& e) {
    return storage_failed(e);
  }
}

void Community::set_limits(int per_minute, int wrong_secrets_per_minute) {
  std::lock_guard lock(mutex_);
  per_minute_ = per_minute;
  wrong_secrets_per_minute_ = wrong_secrets_per_minute;
}

void Community::set_admin_secret(std::string secret) {
  std::lock_guard lock(mutex_);
  admin_secret_ = std::move(secret);
}

void Community::share_limits(Bus* bus) {
  posts_.share(bus, "feedback");
  recommends_.share(bus, "recommend");
  admin_guesses_.share(bus, "admin");
}

void Community::sweep() {
  const int64_t t = now_();
  for (AddressLimiter* l : {&posts_, &recommends_, &admin_guesses_}) l->sweep(t);
}

bool Community::admin(const std::string& authorization, const std::string& ip, Answer& refusal) {
  std::lock_guard lock(mutex_);
  return admin_locked(authorization, ip, refusal);
}

bool Community::admin_locked(const std::string& authorization, const std::string& ip, Answer& refusal) {
  if (admin_secret_.empty()) {
    refusal = error_reply(Error{ErrorCode::NotFound, Msg::NoEndpoint});
    return false;
  }
  // "Bearer SECRET", the scheme in any case (RFC 9110, 11.1).
  const std::string_view header = trim(authorization);
  const size_t space = header.find(' ');
  const std::string given = space != std::string_view::npos && lower(header.substr(0, space)) == "bearer"
                                ? std::string(trim(header.substr(space + 1)))
                                : "";
  // The same time whatever the first difference.
  unsigned diff = given.size() != admin_secret_.size();
  for (size_t i = 0; i < given.size(); ++i) diff |= unsigned(given[i] ^ admin_secret_[i % admin_secret_.size()]);
  if (!admin_guesses_.allow(ip, now_(), wrong_secrets_per_minute_, false)) {
    refusal = rate_limited(Msg::LimitSecrets);
    return false;
  }
  if (diff != 0) {
    admin_guesses_.allow(ip, now_(), wrong_secrets_per_minute_);
    refusal = reply(Outcome::Unauthorized, error_json("unauthorized", Msg::AdminSecret));
    return false;
  }
  return true;
}

namespace {

json::object recommendation_json(const RecommendationRecord& r, bool admin) {
  json::object o{{"id", r.id},     {"stars", r.stars}, {"text", r.text},           {"name", r.name},
                 {"lang", r.lang}, {"variant", r.variant}, {"createdAt", r.created_at}};
  if (admin) {
    o["code"] = r.code;
    o["hidden"] = r.hidden;
  }
  return o;
}

}  // namespace

Answer Community::recommend(const std::string& body, const std::string& ip, const SeatCheck& seat_check) {
  std::unique_lock lock(mutex_);
  Message why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  std::string code, token, rawText, lang, browser;
  int64_t stars = 0;
  bool starsPresent = false;
  if (!get_string(*o, "code", code) || !get_string(*o, "token", token) || !get_string(*o, "text", rawText) ||
      !get_string(*o, "lang", lang) || !get_string(*o, "browser", browser) || !get_int(*o, "stars", stars, starsPresent))
    return bad_request(Msg::FieldType);
  if (browser.size() > 64) return bad_request(Msg::BrowserTooLong);
  if (!starsPresent || stars < 1 || stars > 5) return bad_request(Msg::RecommendStars);
  std::string text;
  if (!rawText.empty()) {
    auto t = clean_text(rawText, 500, why);
    if (!t) return bad_request(why);
    text = *t;
  }
  if (token.empty() || token.size() > 64) return error_reply(Error{ErrorCode::Forbidden, Msg::RecommendToken});
  // Per address, and per browser (the id the page keeps, as for finding an
  // opponent): one browser moving between addresses is limited all the same.
  const int64_t t = now_();
  const std::string by_browser = browser.empty() ? "" : "browser " + browser;
  if (!recommends_.allow(ip, t, per_minute_, false) ||
      (!by_browser.empty() && !recommends_.allow(by_browser, t, per_minute_, false)))
    return rate_limited(Msg::LimitRecommendations);
  recommends_.allow(ip, t, per_minute_);
  if (!by_browser.empty()) recommends_.allow(by_browser, t, per_minute_);
  // The tables say whose seat the token is (the token shows the code is no
  // guess; a wrong pair counts there as a wrong code). Asked without the
  // community's lock: the tables answer on their own thread.
  lock.unlock();
  auto found = seat_check(normalise_code(code), token, ip);
  if (auto* refused = std::get_if<Answer>(&found)) return *refused;
  const RecommendingSeat& seat = std::get<RecommendingSeat>(found);
  // Only a player who really played: a finished game at this table with a
  // handful of moves of their own (against a person or the CPU alike).
  if (seat.own_moves < MOVES_TO_RECOMMEND)
    return error_reply(Error{ErrorCode::Conflict, {Msg::RecommendTooEarly, {{"moves", MOVES_TO_RECOMMEND}}}});
  lock.lock();
  RecommendationRecord r;
  r.code = seat.code;
  r.seat = seat.seat;
  r.name = seat.name;
  r.variant = seat.variant;
  r.stars = int(stars);
  r.text = text;
  r.lang = lang == "th" || lang == "km" ? lang : "en";
  r.created_at = now_();
  try {
    store_.put_recommendation(r);
  } catch (const std::exception& e) {
    return storage_failed(e);
  }
  return reply(Outcome::Created, json::object{{"recommendation", recommendation_json(r, false)}});
}

Answer Community::recommendations() {
  std::lock_guard lock(mutex_);
  try {
    // The list shows the newest 50 visible ones. The average resists bursts:
    // of those less than a day old, at most BURST_COUNTED created within an
    // hour count at once; the others are held until they are a day old (the
    // maintainers may hide them meanwhile).
    auto all = store_.list_recommendations(false, 100000);  // newest first
    const int64_t t = now_();
    std::vector<int64_t> counted_young;  // creation times, oldest first
    double sum = 0;
    size_t counted = 0, held = 0;
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      bool counts = t - it->created_at >= RECOMMENDATION_HOLD_MS;
      if (!counts) {
        const auto recent = std::count_if(counted_young.begin(), counted_young.end(),
                                          [&](int64_t at) { return it->created_at - at < HOUR_MS; });
        counts = recent < BURST_COUNTED;
        if (counts) counted_young.push_back(it->created_at);
      }
      if (counts) sum += it->stars, ++counted;
      else ++held;
    }
    json::array items;
    for (const auto& r : all) {
      if (items.size() >= 50) break;
      items.push_back(recommendation_json(r, false));
    }
    json::object o{{"count", counted}, {"held", held}, {"items", std::move(items)}};
    o["average"] = counted ? json::value(std::round(sum / double(counted) * 10) / 10) : json::value(nullptr);
    return reply(Outcome::Ok, o);
  } catch (const std::exception& e) {
    return storage_failed(e);
  }
}

Answer Community::admin_recommendations(const std::string& authorization, const std::string& ip) {
  std::lock_guard lock(mutex_);
  Answer refusal;
  if (!admin_locked(authorization, ip, refusal)) return refusal;
  try {
    json::array items;
    for (const auto& r : store_.list_recommendations(true, 1000)) items.push_back(recommendation_json(r, true));
    return reply(Outcome::Ok, json::object{{"items", std::move(items)}});
  } catch (const std::exception& e) {
    return storage_failed(e);
  }
}

Answer Community::admin_recommendation_update(const std::string& id, const std::string& body,
                                           const std::string& authorization, const std::string& ip) {
  std::lock_guard lock(mutex_);
  Answer refusal;
  if (!admin_locked(authorization, ip, refusal)) return refusal;
  if (id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos)
    return error_reply(Error{ErrorCode::NotFound, Msg::RecommendUnknown});
  Message why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  bool hidden = false;
  if (!o->contains("hidden") || !get_bool(*o, "hidden", hidden)) return bad_request(Msg::AdminHidden);
  try {
    if (!store_.hide_recommendation(std::stoll(id), hidden))
      return error_reply(Error{ErrorCode::NotFound, Msg::RecommendUnknown});
  } catch (const std::exception& e) {
    return storage_failed(e);
  }
  return reply(Outcome::Ok, json::object{{"id", std::stoll(id)}, {"hidden", hidden}});
}

Answer Community::admin_feedback_list(const std::string& authorization, const std::string& ip) {
  std::lock_guard lock(mutex_);
  Answer refusal;
  if (!admin_locked(authorization, ip, refusal)) return refusal;
  try {
    return reply(Outcome::Ok, feedback_items(store_.list_feedback(true, 1000)));
  } catch (const std::exception& e) {
    return storage_failed(e);
  }
}

Answer Community::admin_feedback_update(const std::string& id, const std::string& body, const std::string& authorization,
                                     const std::string& ip) {
  std::lock_guard lock(mutex_);
  Answer refusal;
  if (!admin_locked(authorization, ip, refusal)) return refusal;
  int64_t n = 0;
  if (id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos)
    return error_reply(Error{ErrorCode::NotFound, Msg::FeedbackUnknown});
  n = std::stoll(id);
  Message why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  std::string status, rawReply;
  bool hidden = false, hiddenPresent = o->contains("hidden"), replyPresent = o->contains("reply");
  if (!get_string(*o, "status", status) || !get_string(*o, "reply", rawReply) || !get_bool(*o, "hidden", hidden))
    return bad_request(Msg::FieldType);
  if (!status.empty() && status != "new" && status != "planned" && status != "done" && status != "wont")
    return bad_request(Msg::FeedbackStatus);
  std::string reply_text;
  if (replyPresent && !rawReply.empty()) {
    auto r = clean_text(rawReply, MAX_FEEDBACK_TEXT, why);
    if (!r) return bad_request(why);
    reply_text = *r;
  }
  try {
    auto f = store_.find_feedback(n);
    if (!f) return error_reply(Error{ErrorCode::NotFound, Msg::FeedbackUnknown});
    if (!status.empty()) f->status = status;
    if (replyPresent) {
      f->reply = reply_text;
      f->replied_at = reply_text.empty() ? 0 : now_();
    }
    if (hiddenPresent) f->hidden = hidden;
    store_.update_feedback(*f);
    return reply(Outcome::Ok, json::object{{"item", feedback_json(*f)}});
  } catch (const std::exception& e) {
    return storage_failed(e);
  }
}

}  // namespace makruk::server
