#include "server/stores/sql_store.h"

namespace makruk::server {

using sql::Params;
using sql::Rows;

int64_t sql::Rows::integer(int row, int col) const {
  const std::string& t = text(row, col);
  return t.empty() ? 0 : std::stoll(t);
}

namespace {

#define RECOMMENDATION_COLUMNS "id, code, seat, name, variant, stars, text, lang, hidden, created_at"
#define FEEDBACK_COLUMNS "id, kind, text, name, table_code, lang, status, reply, hidden, created_at, replied_at"

FeedbackRecord feedback_row(const Rows& q, int i) {
  return FeedbackRecord{q.integer(i, 0), q.text(i, 1), q.text(i, 2),         q.text(i, 3),     q.text(i, 4),
                        q.text(i, 5),    q.text(i, 6), q.text(i, 7),         q.integer(i, 8) != 0,
                        q.integer(i, 9), q.integer(i, 10)};
}

std::vector<std::string> codes(const Rows& q) {
  std::vector<std::string> out;
  for (int i = 0; i < q.size(); ++i) out.push_back(q.text(i, 0));
  return out;
}

}  // namespace

SqlStore::Transaction::Transaction(SqlStore& st, bool batch_only)
    : s(st), nested(st.in_batch_), active(nested || !batch_only) {
  if (!active) return;
  s.run(nested ? "SAVEPOINT method" : s.begin_statement(), {});
  s.in_transaction_ = true;
}

void SqlStore::Transaction::commit() {
  if (active) s.run(nested ? "RELEASE method" : "COMMIT", {});
  done = true;
  if (active && !nested) s.in_transaction_ = false;
}

SqlStore::Transaction::~Transaction() {
  if (!active || done) return;
  if (!nested) s.in_transaction_ = false;
  s.roll_back(nested);
}

void SqlStore::create_table(const TableRecord& p, const SeatRecord& host) {
  std::lock_guard lock(mutex_);
  Transaction t(*this);
  run("INSERT INTO parties (code, variant, counting, show_legal, swap_colors, labels, cpu_level, created_at, "
      "start_fen, mode, starts_at, expired_at, rematch_offer, invite_key, last_action_at, clock_ms, increment_ms, "
      "tournament) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $8, $15, $16, $17)",
      Params()(p.code)(p.variant)(p.counting)(int64_t(p.show_legal))(int64_t(p.swap_colors))(int64_t(p.labels))(
          int64_t(p.cpu_level))(p.created_at)(p.start_fen)(p.mode)(p.starts_at)(p.expired_at)(
          int64_t(p.rematch_offer))(p.invite_key)(p.clock_ms)(p.increment_ms)(p.tournament));
  insert_seat(host);
  t.commit();
}

void SqlStore::add_seat(const SeatRecord& s) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  insert_seat(s);
  t.commit();
}

void SqlStore::rename_seat(const std::string& code, int seat, const std::string& name) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  run("UPDATE seats SET name = $1 WHERE code = $2 AND seat = $3", Params()(name)(code)(int64_t(seat)));
  t.commit();
}

void SqlStore::set_rematch(const std::string& code, int offered_by, int declined_by) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  run("UPDATE parties SET rematch_offer = $1, rematch_declined_by = $2 WHERE code = $3",
      Params()(int64_t(offered_by))(int64_t(declined_by))(code));
  t.commit();
}

int64_t SqlStore::create_game(const std::string& code, int number, int white_seat, const std::string& start_fen,
                              int64_t at, bool cpu_to_act, const std::string& public_id) {
  std::lock_guard lock(mutex_);
  Transaction t(*this);
  const int64_t id = run("INSERT INTO games (code, number, white_seat, start_fen, created_at, public_id) "
                         "VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                         Params()(code)(int64_t(number))(int64_t(white_seat))(start_fen)(at)(public_id))
                         .integer(0, 0);
  run("UPDATE parties SET last_action_at = $1, cpu_turn = $2, cpu_lease_until = 0 WHERE code = $3",
      Params()(at)(int64_t(cpu_to_act))(code));
  t.commit();
  return id;
}

void SqlStore::append_action(int64_t game, int expected_version, const std::string& action, int64_t at,
                             bool cpu_to_act) {
  std::lock_guard lock(mutex_);
  Transaction t(*this);
  insert_action(game, expected_version, action, at);
  run("UPDATE parties SET last_action_at = $1, cpu_turn = $2, cpu_lease_until = 0 WHERE code = "
      "(SELECT code FROM games WHERE id = $3)",
      Params()(at)(int64_t(cpu_to_act))(game));
  t.commit();
}

void SqlStore::expire_table(const std::string& code, int64_t game, int expected_version, int64_t at) {
  std::lock_guard lock(mutex_);
  Transaction t(*this);
  if (game) insert_action(game, expected_version, "expire", at);
  if (run("UPDATE parties SET expired_at = $1, cpu_turn = 0 WHERE code = $2 AND expired_at = 0", Params()(at)(code))
          .affected == 0)
    throw VersionConflict("table " + code + " has ended already");
  t.commit();
}

bool SqlStore::table_exists(const std::string& code) {
  std::lock_guard lock(mutex_);
  return run("SELECT 1 FROM parties WHERE code = $1", Params()(code)).size() > 0;
}

std::optional<TableData> SqlStore::load_table(const std::string& code) {
  std::lock_guard lock(mutex_);
  return load(code, 0);
}

std::optional<TableData> SqlStore::load_game(const std::string& public_id) {
  std::lock_guard lock(mutex_);
  if (public_id.empty()) return std::nullopt;
  Rows g = run("SELECT code, id FROM games WHERE public_id = $1", Params()(public_id));
  if (g.size() == 0) return std::nullopt;
  return load(g.text(0, 0), g.integer(0, 1));
}

std::optional<GameHead> SqlStore::game_head(const std::string& public_id) {
  std::lock_guard lock(mutex_);
  if (public_id.empty()) return std::nullopt;
  Rows g = run("SELECT id, code, (SELECT COALESCE(MAX(version), 0) FROM actions WHERE game = games.id) "
               "FROM games WHERE public_id = $1",
               Params()(public_id));
  if (g.size() == 0) return std::nullopt;
  GameHead head{g.integer(0, 0), int(g.integer(0, 2)), {}};
  Rows seats = run("SELECT name FROM seats WHERE code = $1 ORDER BY seat", Params()(g.text(0, 1)));
  for (int i = 0; i < seats.size(); ++i) head.names.push_back(seats.text(i, 0));
  return head;
}

std::optional<TableData> SqlStore::load(const std::string& code, int64_t game) {
  Rows p = run("SELECT code, variant, counting, show_legal, swap_colors, labels, cpu_level, created_at, start_fen, "
               "mode, starts_at, expired_at, rematch_offer, invite_key, left_at, rematch_declined_by, clock_ms, "
               "increment_ms, tournament FROM parties "
               "WHERE code = $1",
               Params()(code));
  if (p.size() == 0) return std::nullopt;
  TableData d;
  d.party = {p.text(0, 0),          p.text(0, 1),     p.text(0, 2),          p.integer(0, 3) != 0,
             p.integer(0, 4) != 0,  p.integer(0, 5) != 0, int(p.integer(0, 6)), p.integer(0, 7),
             p.text(0, 8),          p.text(0, 9),     p.integer(0, 10),      p.integer(0, 11),
             int(p.integer(0, 12)), p.text(0, 13),    p.integer(0, 14),      int(p.integer(0, 15)),
             p.integer(0, 16),      p.integer(0, 17),     p.text(0, 18)};
  Rows seats = run("SELECT seat, name, token_hash FROM seats WHERE code = $1 ORDER BY seat", Params()(code));
  for (int i = 0; i < seats.size(); ++i)
    d.seats.push_back({code, int(seats.integer(i, 0)), seats.text(i, 1), seats.text(i, 2)});
  Rows games = run("SELECT id, number, white_seat, start_fen, created_at, public_id FROM games WHERE code = $1 "
                   "AND (CAST($2 AS BIGINT) = 0 OR id = CAST($2 AS BIGINT)) ORDER BY number DESC LIMIT 1",
                   Params()(code)(game));
  if (games.size() > 0) {
    GameRecord g{games.integer(0, 0), code, int(games.integer(0, 1)), int(games.integer(0, 2)), games.text(0, 3),
                 {},                  games.integer(0, 4), games.text(0, 5)};
    Rows actions = run("SELECT version, action, at FROM actions WHERE game = $1 ORDER BY version", Params()(g.id));
    g.actions.reserve(size_t(actions.size()));
    for (int i = 0; i < actions.size(); ++i)
      g.actions.push_back({int(actions.integer(i, 0)), actions.text(i, 1), actions.integer(i, 2)});
    d.games.push_back(std::move(g));
  }
  return d;
}

std::vector<std::string> SqlStore::cpu_turn_tables(int64_t now, int limit) {
  std::lock_guard lock(mutex_);
  return codes(run("SELECT code FROM parties WHERE cpu_turn = 1 AND cpu_lease_until <= $1 LIMIT $2",
                   Params()(now)(int64_t(limit))));
}

bool SqlStore::claim_cpu_turn(const std::string& code, int64_t now, int64_t until) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  const bool claimed =
      run("UPDATE parties SET cpu_lease_until = $1 WHERE code = $2 AND cpu_turn = 1 AND cpu_lease_until <= $3",
          Params()(until)(code)(now))
          .affected == 1;
  t.commit();
  return claimed;
}

std::vector<std::string> SqlStore::turn_based_idle_since(int64_t idle_since, int limit) {
  std::lock_guard lock(mutex_);
  return codes(run("SELECT code FROM parties WHERE mode = 'turn' AND expired_at = 0 AND last_action_at <= $1 "
                   "AND starts_at <= $1 LIMIT $2",
                   Params()(idle_since)(int64_t(limit))));
}

void SqlStore::clear_cpu_turn(const std::string& code) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  run("UPDATE parties SET cpu_turn = 0 WHERE code = $1", Params()(code));
  t.commit();
}

void SqlStore::set_left_at(const std::string& code, int64_t at) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  run("UPDATE parties SET left_at = $1 WHERE code = $2", Params()(at)(code));
  t.commit();
}

void SqlStore::add_subscription(const SubscriptionRecord& r) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  run("INSERT INTO push_subscriptions VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (endpoint, code, seat) "
      "DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, lang = excluded.lang, "
      "created_at = excluded.created_at",
      Params()(r.endpoint)(r.code)(int64_t(r.seat))(r.p256dh)(r.auth)(r.lang)(r.created_at));
  t.commit();
}

int SqlStore::remove_subscription(const std::string& endpoint) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  const int removed = int(run("DELETE FROM push_subscriptions WHERE endpoint = $1", Params()(endpoint)).affected);
  t.commit();
  return removed;
}

void SqlStore::remove_seat_subscription(const std::string& endpoint, const std::string& code, int seat) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  run("DELETE FROM push_subscriptions WHERE endpoint = $1 AND code = $2 AND seat = $3",
      Params()(endpoint)(code)(int64_t(seat)));
  t.commit();
}

std::vector<SubscriptionRecord> SqlStore::load_subscriptions(const std::string& code) {
  std::lock_guard lock(mutex_);
  Rows q = run("SELECT endpoint, code, seat, p256dh, auth, lang, created_at FROM push_subscriptions "
               "WHERE code = $1 ORDER BY seat, created_at",
               Params()(code));
  std::vector<SubscriptionRecord> out;
  for (int i = 0; i < q.size(); ++i)
    out.push_back({q.text(i, 0), q.text(i, 1), int(q.integer(i, 2)), q.text(i, 3), q.text(i, 4), q.text(i, 5),
                   q.integer(i, 6)});
  return out;
}

void SqlStore::add_feedback(FeedbackRecord& f) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  f.id = run("INSERT INTO feedback (kind, text, name, table_code, lang, status, reply, hidden, created_at, "
             "replied_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
             Params()(f.kind)(f.text)(f.name)(f.table)(f.lang)(f.status)(f.reply)(int64_t(f.hidden))(f.created_at)(
                 f.replied_at))
             .integer(0, 0);
  t.commit();
}

void SqlStore::update_feedback(const FeedbackRecord& f) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  run("UPDATE feedback SET status = $1, reply = $2, hidden = $3, replied_at = $4 WHERE id = $5",
      Params()(f.status)(f.reply)(int64_t(f.hidden))(f.replied_at)(f.id));
  t.commit();
}

std::vector<FeedbackRecord> SqlStore::list_feedback(bool with_hidden, int limit) {
  std::lock_guard lock(mutex_);
  Rows q = run(with_hidden ? "SELECT " FEEDBACK_COLUMNS " FROM feedback ORDER BY id DESC LIMIT $1"
                           : "SELECT " FEEDBACK_COLUMNS " FROM feedback WHERE hidden = 0 ORDER BY id DESC LIMIT $1",
               Params()(int64_t(limit)));
  std::vector<FeedbackRecord> out;
  for (int i = 0; i < q.size(); ++i) out.push_back(feedback_row(q, i));
  return out;
}

std::optional<FeedbackRecord> SqlStore::find_feedback(int64_t id) {
  std::lock_guard lock(mutex_);
  Rows q = run("SELECT " FEEDBACK_COLUMNS " FROM feedback WHERE id = $1", Params()(id));
  if (q.size() == 0) return std::nullopt;
  return feedback_row(q, 0);
}

void SqlStore::put_recommendation(RecommendationRecord& r) {
  std::lock_guard lock(mutex_);
  Transaction t(*this);
  run("DELETE FROM recommendations WHERE code = $1 AND seat = $2", Params()(r.code)(int64_t(r.seat)));
  r.id = run("INSERT INTO recommendations (code, seat, name, variant, stars, text, lang, hidden, created_at) "
             "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
             Params()(r.code)(int64_t(r.seat))(r.name)(r.variant)(int64_t(r.stars))(r.text)(r.lang)(
                 int64_t(r.hidden))(r.created_at))
             .integer(0, 0);
  t.commit();
}

bool SqlStore::hide_recommendation(int64_t id, bool hidden) {
  std::lock_guard lock(mutex_);
  Transaction t(*this, true);
  const bool found =
      run("UPDATE recommendations SET hidden = $1 WHERE id = $2", Params()(int64_t(hidden))(id)).affected > 0;
  t.commit();
  return found;
}

std::vector<RecommendationRecord> SqlStore::list_recommendations(bool with_hidden, int limit) {
  std::lock_guard lock(mutex_);
  Rows q = run(with_hidden ? "SELECT " RECOMMENDATION_COLUMNS " FROM recommendations ORDER BY id DESC LIMIT $1"
                           : "SELECT " RECOMMENDATION_COLUMNS
                             " FROM recommendations WHERE hidden = 0 ORDER BY id DESC LIMIT $1",
               Params()(int64_t(limit)));
  std::vector<RecommendationRecord> out;
  for (int i = 0; i < q.size(); ++i)
    out.push_back(RecommendationRecord{q.integer(i, 0), q.text(i, 1), int(q.integer(i, 2)), q.text(i, 3),
                                       q.text(i, 4), int(q.integer(i, 5)), q.text(i, 6), q.text(i, 7),
                                       q.integer(i, 8) != 0, q.integer(i, 9)});
  return out;
}

void SqlStore::create_tournament(const TournamentRecord& t) {
  std::lock_guard lock(mutex_);
  Transaction tx(*this, true);
  run("INSERT INTO tournaments (code, title, variant, counting, mode, format, rounds, arena_ms, clock_ms, "
      "increment_ms, host_hash, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
      Params()(t.code)(t.title)(t.variant)(t.counting)(t.mode)(t.format)(int64_t(t.rounds))(t.arena_ms)(t.clock_ms)(
          t.increment_ms)(t.host_hash)(t.secret)(t.created_at));
  tx.commit();
}

void SqlStore::append_tournament_event(const std::string& code, int expected_version, const std::string& event,
                                       int64_t at) {
  std::lock_guard lock(mutex_);
  Transaction tx(*this, true);
  // One statement: the version checked and the event added, or nothing (a
  // writer at another instance that took the version first makes this one's
  // insert do nothing).
  if (run("INSERT INTO tournament_events (code, version, event, at) "
          "SELECT CAST($1 AS TEXT), CAST($2 AS INTEGER) + 1, CAST($3 AS TEXT), CAST($4 AS BIGINT) "
          "WHERE (SELECT COALESCE(MAX(version), 0) FROM tournament_events WHERE code = CAST($1 AS TEXT)) = "
          "CAST($2 AS INTEGER) ON CONFLICT DO NOTHING",
          Params()(code)(int64_t(expected_version))(event)(at))
          .affected == 0)
    throw VersionConflict("tournament " + code + " is not at version " + std::to_string(expected_version));
  tx.commit();
}

std::optional<TournamentRecord> SqlStore::load_tournament(const std::string& code) {
  std::lock_guard lock(mutex_);
  Rows q = run("SELECT code, title, variant, counting, mode, format, rounds, arena_ms, clock_ms, increment_ms, "
               "host_hash, secret, created_at FROM tournaments WHERE code = $1",
               Params()(code));
  if (q.size() == 0) return std::nullopt;
  return TournamentRecord{q.text(0, 0),    q.text(0, 1),    q.text(0, 2),     q.text(0, 3),     q.text(0, 4),
                          q.text(0, 5),    int(q.integer(0, 6)), q.integer(0, 7), q.integer(0, 8), q.integer(0, 9),
                          q.text(0, 10),   q.text(0, 11),   q.integer(0, 12)};
}

std::vector<TournamentEvent> SqlStore::tournament_events(const std::string& code, int after_version) {
  std::lock_guard lock(mutex_);
  Rows q = run("SELECT version, event, at FROM tournament_events WHERE code = $1 AND version > $2 ORDER BY version",
               Params()(code)(int64_t(after_version)));
  std::vector<TournamentEvent> out;
  out.reserve(size_t(q.size()));
  for (int i = 0; i < q.size(); ++i) out.push_back({int(q.integer(i, 0)), q.text(i, 1), q.integer(i, 2)});
  return out;
}

void SqlStore::insert_action(int64_t game, int expected_version, const std::string& action, int64_t at) {
  lock_game(game);
  const int64_t have =
      run("SELECT COALESCE(MAX(version), 0) FROM actions WHERE game = $1", Params()(game)).integer(0, 0);
  if (have != expected_version)
    throw VersionConflict("game " + std::to_string(game) + " is at version " + std::to_string(have) + ", not " +
                          std::to_string(expected_version));
  run("INSERT INTO actions VALUES ($1, $2, $3, $4)", Params()(game)(int64_t(expected_version + 1))(action)(at));
}

void SqlStore::insert_seat(const SeatRecord& s) {
  run("INSERT INTO seats VALUES ($1, $2, $3, $4)", Params()(s.code)(int64_t(s.seat))(s.name)(s.token_hash));
}

}  // namespace makruk::server
