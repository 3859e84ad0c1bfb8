package dev.cuckoofilter.spark.aggregate;

import java.util.ArrayList;
import java.util.List;

/**
 * The aggregation buffer of {@link CuckooFilterAggregate}: a set of 64-bit entries (entry codes, or item
 * hashes when the filter is sized from the data). Rows of a partition go to a hash set; what is
 * serialized and shuffled is one sorted, delta-encoded run; merging keeps runs and compacts them into
 * one sorted distinct run once there are many. Set semantics make the result independent of
 * partitioning, partition order and retries.
 */
public final class EntrySetBuffer implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  private static final int MAX_RUNS = 16;

  private transient LongHashSet pending;
  private transient List<SortedRun> runs = new ArrayList<>();

  /** Java serialization (used when the buffer travels through an Encoder): the compact sorted run. */
  private void writeObject(java.io.ObjectOutputStream out) throws java.io.IOException {
    byte[] bytes = serialize();
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private void readObject(java.io.ObjectInputStream in) throws java.io.IOException {
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    runs = new ArrayList<>();
    runs.add(SortedRun.of(bytes));
  }

  public void add(long value) {
    if (pending == null) {
      pending = new LongHashSet(1 << 12);
    }
    pending.add(value);
  }

  public void merge(EntrySetBuffer other) {
    if (other.pending != null) {
      other.flushPending();
    }
    runs.addAll(other.runs);
    if (runs.size() > MAX_RUNS) {
      compact();
    }
  }

  private void flushPending() {
    long[] sorted = pending.sortedUnsigned();
    pending = null;
    runs.add(SortedRun.encode(sorted, sorted.length));
  }

  /** Everything as one sorted distinct run. */
  private SortedRun compact() {
    if (pending != null) {
      flushPending();
    }
    if (runs.size() != 1) {
      SortedRun merged = mergeRuns(runs);
      runs.clear();
      runs.add(merged);
    }
    return runs.get(0);
  }

  public byte[] serialize() {
    return compact().bytes;
  }

  public static EntrySetBuffer deserialize(byte[] bytes) {
    EntrySetBuffer b = new EntrySetBuffer();
    b.runs.add(SortedRun.of(bytes));
    return b;
  }

  /** Number of distinct entries. */
  public long count() {
    return compact().count;
  }

  /** The distinct entries in ascending unsigned order. */
  public java.util.PrimitiveIterator.OfLong entries() {
    return compact().cursor();
  }

  /** K-way merge with duplicates removed, through a small binary heap of cursors. */
  private static SortedRun mergeRuns(List<SortedRun> runs) {
    long total = 0;
    int k = 0;
    SortedRun.Cursor[] heap = new SortedRun.Cursor[runs.size()];
    long[] heads = new long[runs.size()];
    for (SortedRun run : runs) {
      total += run.count;
      SortedRun.Cursor c = run.cursor();
      if (c.hasNext()) {
        heap[k] = c;
        heads[k] = c.nextLong() ^ Long.MIN_VALUE; // signed order of flipped values = unsigned order
        siftUp(heap, heads, k++);
      }
    }
    SortedRun.Writer out = new SortedRun.Writer(total);
    boolean any = false;
    long last = 0;
    while (k > 0) {
      long v = heads[0];
      if (!any || v != last) {
        out.add(v ^ Long.MIN_VALUE);
        last = v;
        any = true;
      }
      if (heap[0].hasNext()) {
        heads[0] = heap[0].nextLong() ^ Long.MIN_VALUE;
      } else {
        k--;
        heap[0] = heap[k];
        heads[0] = heads[k];
      }
      siftDown(heap, heads, 0, k);
    }
    return out.finish();
  }

  private static void siftUp(SortedRun.Cursor[] heap, long[] heads, int i) {
    while (i > 0) {
      int parent = (i - 1) / 2;
      if (heads[parent] <= heads[i]) {
        return;
      }
      swap(heap, heads, i, parent);
      i = parent;
    }
  }

  private static void siftDown(SortedRun.Cursor[] heap, long[] heads, int i, int n) {
    while (true) {
      int smallest = i;
      int l = 2 * i + 1;
      int r = l + 1;
      if (l < n && heads[l] < heads[smallest]) {
        smallest = l;
      }
      if (r < n && heads[r] < heads[smallest]) {
        smallest = r;
      }
      if (smallest == i) {
        return;
      }
      swap(heap, heads, i, smallest);
      i = smallest;
    }
  }

  private static void swap(SortedRun.Cursor[] heap, long[] heads, int a, int b) {
    SortedRun.Cursor c = heap[a];
    heap[a] = heap[b];
    heap[b] = c;
    long h = heads[a];
    heads[a] = heads[b];
    heads[b] = h;
  }
}
