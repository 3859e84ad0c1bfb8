package dev.cuckoofilter.spark.execution;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.spark.util.AccumulatorV2;

/**
 * What the {@link FilterTapExec} of one shuffle sends to the driver: for each map partition, the serialized
 * partial build ({@code EntrySetBuffer} bytes) of its keys, or a mark that the partition gave up because its
 * keys outgrew its share of the byte budget. Everything is dropped once the total passes the budget, so the
 * driver never holds more than that.
 *
 * <p>A partition's keys are the same in every attempt (the tapped plan is deterministic), so the first
 * contribution of a partition is kept and later ones (speculative or retried tasks, re-run stages) are
 * ignored. Spark merges the updates of successful tasks only, so a contribution is always a whole
 * partition.
 */
public final class FilterTapAccumulator extends AccumulatorV2<FilterTapAccumulator.Part, FilterTapAccumulator> {
  private static final long serialVersionUID = 1L;

  /** One map partition's contribution; {@code bytes == null} if it gave up. */
  public static final class Part implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    final int partition;
    final byte[] bytes;

    Part(int partition, byte[] bytes) {
      this.partition = partition;
      this.bytes = bytes;
    }
  }

  private final long maxBytes;
  private TreeMap<Integer, byte[]> parts = new TreeMap<>();
  private long totalBytes;
  private boolean gaveUp;

  public FilterTapAccumulator(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** The byte budget of all partitions together. */
  long maxBytes() {
    return maxBytes;
  }

  @Override
  public synchronized boolean isZero() {
    return parts.isEmpty() && !gaveUp;
  }

  @Override
  public synchronized FilterTapAccumulator copy() {
    FilterTapAccumulator c = new FilterTapAccumulator(maxBytes);
    c.parts = new TreeMap<>(parts);
    c.totalBytes = totalBytes;
    c.gaveUp = gaveUp;
    return c;
  }

  @Override
  public synchronized void reset() {
    parts = new TreeMap<>();
    totalBytes = 0;
    gaveUp = false;
  }

  @Override
  public synchronized void add(Part part) {
    if (gaveUp || parts.containsKey(part.partition)) {
      return;
    }
    if (part.bytes == null || totalBytes + part.bytes.length > maxBytes) {
      gaveUp = true;
      parts = new TreeMap<>();
      totalBytes = 0;
      return;
    }
    parts.put(part.partition, part.bytes);
    totalBytes += part.bytes.length;
  }

  @Override
  public void merge(AccumulatorV2<Part, FilterTapAccumulator> other) {
    FilterTapAccumulator o = (FilterTapAccumulator) other;
    List<Part> incoming = new ArrayList<>();
    boolean otherGaveUp;
    synchronized (o) {
      otherGaveUp = o.gaveUp;
      o.parts.forEach((p, b) -> incoming.add(new Part(p, b)));
    }
    synchronized (this) {
      if (otherGaveUp) {
        add(new Part(-1, null));
      }
      for (Part part : incoming) {
        add(part);
      }
    }
  }

  @Override
  public FilterTapAccumulator value() {
    return this;
  }

  /**
   * The contributions of partitions {@code 0 .. mapPartitions-1}, in partition order, if every one of them
   * arrived and none gave up; else null (the caller then reads the shuffle instead).
   */
  synchronized List<byte[]> complete(int mapPartitions) {
    if (gaveUp || parts.size() != mapPartitions
        || (mapPartitions > 0 && (parts.firstKey() != 0 || parts.lastKey() != mapPartitions - 1))) {
      return null;
    }
    return new ArrayList<>(parts.values());
  }

  @Override
  public String toString() {
    return "FilterTapAccumulator(" + (gaveUp ? "gave up" : parts.size() + " partitions, " + totalBytes + " bytes") + ")";
  }
}
