#include "bench.h"

#include <chrono>
#include <iostream>

#include "core/notation.h"
#include "default_network.h"
#include "search.h"

namespace makruk::engine {

namespace {

struct BenchPosition {
  Variant variant;
  const char* fen;
};

// Openings, middlegames and counted endgames of both variants.
constexpr BenchPosition POSITIONS[] = {
    {Variant::Makruk, "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"},
    {Variant::Makruk, "rnsm1snr/6k1/pppp2pp/P3pp2/8/1PPPPPPP/RSK2M2/1N3SNR w - - 1 7"},
    {Variant::Makruk, "r2mksnr/2sn4/pp2pppp/8/2p4P/PPP1PPP1/1S2KM2/RN3SNR w - - 0 7"},
    {Variant::Makruk, "2r2sn1/2m4r/1pppspk1/p3P1p1/1PP5/PnSPP1P1/4NM2/RN1K1S1R b - - 2 15"},
    {Variant::Makruk, "3m2n1/rs2srk1/n1pppppp/7P/4P3/1mPP1PP1/4NMR1/1NS1KS2 b - - 0 14"},
    {Variant::Makruk, "1mnk4/4r3/1sr1p1MM/MP2p3/2p3P1/2m5/3NKS1R/1R2S1N1 w - - 0 56"},
    {Variant::Makruk, "rn4n1/4m1s1/pp1p4/2s1p1p1/P1P3k1/1PNKP2r/4N3/R1S1MS2 w - - 2 18"},
    {Variant::Makruk, "5sn1/2m4r/3p1pkp/1R6/1P6/2KS3r/8/1N1S2NR w - - 0 27"},
    {Variant::Makruk, "8/2s5/1p3k2/1K6/8/5Ns1/8/r7 w - - 3 52"},
    {Variant::Makruk, "8/8/6k1/1n6/8/5S2/3K4/8 b - - 0 61"},
    {Variant::Makruk, "8/8/4k3/8/8/2R5/8/3K4 w - - 0 70"},
    {Variant::Ouk, "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1"},
    {Variant::Ouk, "rns2snr/4mk2/ppp1p1p1/3p1p2/5PP1/PPPPP3/2KNN3/R1S1MS1R w E - 0 7"},
    {Variant::Ouk, "r3r3/4mk2/1s2s1p1/p1S3PR/PM2pp2/3PmP2/4N3/5RKn w - - 3 60"},
    {Variant::Ouk, "3m4/3sns1r/p1n4k/p1rPPp1p/1PSN1P1P/2K1P3/3M1SR1/2R3N1 w d - 6 33"},
    {Variant::Ouk, "8/8/8/R7/8/8/4k3/2K5 b - - 30 47"},
};

}  // namespace

int run_bench(int depth, std::ostream& out, const std::string& eval_file) {
  Engine engine;
  engine.set_hash(16);
  nnue::Networks nets;
  std::string error;
  if (!nnue::network_by_name(eval_file, nets, &error)) {
    out << "bench: " << eval_file << ": " << error << "\n";
    return 2;
  }
  engine.set_networks(std::move(nets));
  uint64_t total = 0;
  auto start = std::chrono::steady_clock::now();
  int i = 0;
  for (const BenchPosition& bp : POSITIONS) {
    Position pos;
    std::string error;
    if (!pos.set(bp.fen, bp.variant, Counting::Automatic, &error)) {
      out << "bench: bad position " << bp.fen << ": " << error << "\n";
      return 2;
    }
    engine.new_game();
    Limits limits;
    limits.depth = depth;
    SearchResult r = engine.search(pos, limits);
    out << "position " << ++i << ": bestmove " << move_to_string(r.best) << " score "
        << score_to_uci(r.score) << " nodes " << r.nodes << "\n";
    total += r.nodes;
  }
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "===========================\n"
      << "Total time (ms) : " << int64_t(secs * 1000) << "\n"
      << "Nodes searched  : " << total << "\n"
      << "Nodes/second    : " << uint64_t(total / (secs > 0 ? secs : 1e-9)) << std::endl;
  return 0;
}

}  // namespace makruk::engine
