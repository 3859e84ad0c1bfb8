package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.bench.Keys;
import java.util.EnumMap;
import java.util.Map;

/**
 * The filters of Table 3 and Fig. 5 (section 7.1): one of each {@link Contender}, all of the same memory,
 * filled to capacity, the cuckoo filters until their first failed insert and the Bloom filters to 13 bits
 * per item. Construction is timed from the empty filter, allocation excluded, as in the paper's
 * benchmark ({@code conext-table3.cc}).
 */
final class SameMemoryFilters {
  /** A filter holding {@code members[0, items)}. */
  record Filled(Contender contender, PaperFilter filter, int items, long constructionNanos) {
    double constructionMops() {
      return items * 1e3 / constructionNanos;
    }

    double bitsPerItem() {
      return (double) filter.bitSize() / items;
    }

    /** Items over capacity: the load factor of a cuckoo filter, 1 for a Bloom filter at its design capacity. */
    double load() {
      return (double) items / filter.capacity();
    }
  }

  final long bits;
  /** The keys inserted, in order; no filter holds more than a 12-bit-per-entry table has entries. */
  final long[] members;
  final Map<Contender, Filled> filled;

  private SameMemoryFilters(long bits, long[] members, Map<Contender, Filled> filled) {
    this.bits = bits;
    this.members = members;
    this.filled = filled;
  }

  static SameMemoryFilters build(Scale scale) {
    long bits = scale.sameMemoryBits();
    long[] members = Keys.members(Math.toIntExact(bits / 12));
    warmUp(scale);
    Map<Contender, Filled> filled = new EnumMap<>(Contender.class);
    for (Contender c : Contender.values()) {
      Filled f = buildTimed(c, bits, members, scale.timedRepetitions());
      Run.log("%-8s %,d items, %.2f bits/item, built at %.2f M/s", c.label, f.items, f.bitsPerItem(),
          f.constructionMops());
      filled.put(c, f);
    }
    return new SameMemoryFilters(bits, members, filled);
  }

  /** Builds the filter {@code repetitions} times; keeps the last one and the median construction time. */
  private static Filled buildTimed(Contender c, long bits, long[] members, int repetitions) {
    double[] nanos = new double[repetitions];
    PaperFilter filter = null;
    int items = 0;
    for (int r = 0; r < repetitions; r++) {
      PaperFilter empty = c.create(bits);
      System.gc(); // not during the timed fill
      Timing.Timed t = Timing.time(() -> empty.addAll(members, 0, Math.toIntExact(empty.capacity())));
      nanos[r] = t.nanos();
      items = (int) t.result();
      filter = empty;
    }
    return new Filled(c, filter, items, (long) Summary.of(nanos).median());
  }

  /** Builds small filters of every kind first, so the timed builds run compiled code. */
  private static void warmUp(Scale scale) {
    long bits = 48L << scale.warmUpBucketsLog2();
    long[] keys = Keys.nonMembers(Math.toIntExact(bits / 12));
    for (int round = 0; round < 3; round++) {
      for (Contender c : Contender.values()) {
        PaperFilter filter = c.create(bits);
        filter.addAll(keys, 0, Math.toIntExact(filter.capacity()));
        filter.lookupAll(keys);
      }
    }
  }
}
