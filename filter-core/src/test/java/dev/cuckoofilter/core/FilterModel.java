package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.hash.Addressing;
import dev.cuckoofilter.core.hash.CuckooHash;
import java.util.HashMap;
import java.util.Map;

/**
 * An exact model of a cuckoo filter's content. Items that share both buckets and the fingerprint are
 * indistinguishable to any filter, so the model counts copies per (canonical bucket, fingerprint) pair;
 * at that level a cuckoo filter is exact: count, lookup and remove must agree with the model.
 */
final class FilterModel {
  final Map<Long, Integer> pairs = new HashMap<>();
  final Map<Long, Integer> items = new HashMap<>();
  final CuckooFilter filter;
  long total;

  FilterModel(CuckooFilter filter) {
    this.filter = filter;
  }

  long pairOf(long item) {
    FilterParameters p = filter.parameters();
    long h = CuckooHash.hashLong(item, p.seed());
    long b = Addressing.bucketIndex(h, p.bucketCount());
    long fp = Addressing.fingerprint(h, p.fingerprintBits());
    long c = Math.min(b, Addressing.alternate(b, fp, p.bucketCount()));
    return (c << 32) ^ fp;
  }

  int pairCount(long item) {
    return pairs.getOrDefault(pairOf(item), 0);
  }

  /** Applies add to filter and model; returns the filter's answer. */
  boolean add(long item) {
    boolean ok = filter.add(item);
    if (ok) {
      recordAdded(item);
    }
    return ok;
  }

  /** Records an item that reached the filter another way (e.g. through a merge); the filter is not touched. */
  void recordAdded(long item) {
    pairs.merge(pairOf(item), 1, Integer::sum);
    items.merge(item, 1, Integer::sum);
    total++;
  }

  boolean remove(long item) {
    boolean expected = pairCount(item) > 0;
    boolean removed = filter.remove(item);
    assertEquals(expected, removed, () -> "remove(" + item + ") with " + pairCount(item) + " matching copies");
    if (removed) {
      pairs.merge(pairOf(item), -1, Integer::sum);
      items.computeIfPresent(item, (k, v) -> v == 1 ? null : v - 1);
      total--;
    }
    return removed;
  }

  void checkItem(long item) {
    int expected = pairCount(item);
    assertEquals(expected, filter.count(item), () -> "count(" + item + ")");
    assertEquals(expected > 0, filter.mightContain(item), () -> "mightContain(" + item + ")");
  }

  /** Full check: size, every pair's count, no false negative for any item the model holds. */
  void checkAll() {
    checkAll(filter);
  }

  /** {@link #checkAll()} of another filter with the same parameters, e.g. a deserialized copy. */
  void checkAll(CuckooFilter other) {
    assertEquals(total, other.size(), "size");
    for (long item : items.keySet()) {
      assertTrue(other.mightContain(item), () -> "false negative for " + item);
      assertEquals(pairCount(item), other.count(item), () -> "count(" + item + ")");
    }
  }
}
