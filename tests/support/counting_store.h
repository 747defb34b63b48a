// A Store that passes every call to another and counts them (the tables it
// reads, the tables and seats it writes, and so on; every other call in
// `others`), so a test can see whether an instance went to the store or not.
#pragma once

#include <atomic>

#include "server/stores/store.h"

namespace makruk::testing_helpers {

class CountingStore final : public server::Store {
 public:
  explicit CountingStore(server::Store& inner) : s_(inner) {}
  std::atomic<int> loads{0};
  std::atomic<int> game_loads{0};  // full reads of a game by its public id
  std::atomic<int> writes{0};      // tables and seats written
  std::atomic<int> lookups{0};     // whether a code is taken
  std::atomic<int> claims{0};      // CPU turns claimed
  std::atomic<int> others{0};      // any other call
  // While above zero, whether a code is taken is answered "no" (and the
  // count goes down): as when another instance takes it just after the look.
  std::atomic<int> blind_lookups{0};
  // Every call.
  int calls() const { return loads + game_loads + writes + lookups + claims + others; }

  using TableRecord = server::TableRecord;
  using SeatRecord = server::SeatRecord;
  using TableData = server::TableData;
  using GameHead = server::GameHead;
  using SubscriptionRecord = server::SubscriptionRecord;
  using TournamentRecord = server::TournamentRecord;
  using TournamentEvent = server::TournamentEvent;
  using FeedbackRecord = server::FeedbackRecord;
  using RecommendationRecord = server::RecommendationRecord;

  void create_table(const TableRecord& p, const SeatRecord& host) override {
    ++writes;
    s_.create_table(p, host);
  }
  void add_seat(const SeatRecord& s) override {
    ++writes;
    s_.add_seat(s);
  }
  void rename_seat(const std::string& code, int seat, const std::string& name) override {
    ++others;
    s_.rename_seat(code, seat, name);
  }
  void set_rematch(const std::string& code, int offered_by, int declined_by) override {
    ++others;
    s_.set_rematch(code, offered_by, declined_by);
  }
  int64_t create_game(const std::string& code, int number, int white_seat, const std::string& start_fen, int64_t at,
                      bool cpu_to_act, const std::string& public_id) override {
    ++others;
    return s_.create_game(code, number, white_seat, start_fen, at, cpu_to_act, public_id);
  }
  void append_action(int64_t game, int expected_version, const std::string& action, int64_t at,
                     bool cpu_to_act) override {
    ++others;
    s_.append_action(game, expected_version, action, at, cpu_to_act);
  }
  void expire_table(const std::string& code, int64_t game, int expected_version, int64_t at) override {
    ++others;
    s_.expire_table(code, game, expected_version, at);
  }
  bool table_exists(const std::string& code) override {
    ++lookups;
    if (blind_lookups > 0) {
      --blind_lookups;
      return false;
    }
    return s_.table_exists(code);
  }
  std::optional<TableData> load_table(const std::string& code) override {
    ++loads;
    return s_.load_table(code);
  }
  std::optional<TableData> load_game(const std::string& public_id) override {
    ++game_loads;
    return s_.load_game(public_id);
  }
  std::optional<GameHead> game_head(const std::string& public_id) override {
    ++others;
    return s_.game_head(public_id);
  }
  std::vector<std::string> cpu_turn_tables(int64_t now, int limit) override {
    ++others;
    return s_.cpu_turn_tables(now, limit);
  }
  bool claim_cpu_turn(const std::string& code, int64_t now, int64_t until) override {
    ++claims;
    return s_.claim_cpu_turn(code, now, until);
  }
  std::vector<std::string> turn_based_idle_since(int64_t idle_since, int limit) override {
    ++others;
    return s_.turn_based_idle_since(idle_since, limit);
  }
  void clear_cpu_turn(const std::string& code) override {
    ++others;
    s_.clear_cpu_turn(code);
  }
  void set_left_at(const std::string& code, int64_t at) override {
    ++others;
    s_.set_left_at(code, at);
  }
  void add_subscription(const SubscriptionRecord& s) override {
    ++others;
    s_.add_subscription(s);
  }
  int remove_subscription(const std::string& endpoint) override {
    ++others;
    return s_.remove_subscription(endpoint);
  }
  void remove_seat_subscription(const std::string& endpoint, const std::string& code, int seat) override {
    ++others;
    s_.remove_seat_subscription(endpoint, code, seat);
  }
  std::vector<SubscriptionRecord> load_subscriptions(const std::string& code) override {
    ++others;
    return s_.load_subscriptions(code);
  }
  void add_feedback(FeedbackRecord& f) override {
    ++others;
    s_.add_feedback(f);
  }
  void update_feedback(const FeedbackRecord& f) override {
    ++others;
    s_.update_feedback(f);
  }
  std::vector<FeedbackRecord> list_feedback(bool with_hidden, int limit) override {
    ++others;
    return s_.list_feedback(with_hidden, limit);
  }
  std::optional<FeedbackRecord> find_feedback(int64_t id) override {
    ++others;
    return s_.find_feedback(id);
  }
  void put_recommendation(RecommendationRecord& r) override {
    ++others;
    s_.put_recommendation(r);
  }
  bool hide_recommendation(int64_t id, bool hidden) override {
    ++others;
    return s_.hide_recommendation(id, hidden);
  }
  std::vector<RecommendationRecord> list_recommendations(bool with_hidden, int limit) override {
    ++others;
    return s_.list_recommendations(with_hidden, limit);
  }
  void create_tournament(const TournamentRecord& t) override {
    ++others;
    s_.create_tournament(t);
  }
  void append_tournament_event(const std::string& code, int expected_version, const std::string& event,
                               int64_t at) override {
    ++others;
    s_.append_tournament_event(code, expected_version, event, at);
  }
  std::optional<TournamentRecord> load_tournament(const std::string& code) override {
    ++others;
    return s_.load_tournament(code);
  }
  std::vector<TournamentEvent> tournament_events(const std::string& code, int after_version) override {
    ++others;
    return s_.tournament_events(code, after_version);
  }

 private:
  server::Store& s_;
};

}  // namespace makruk::testing_helpers
