package dev.cuckoofilter.spark.aggregate;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.core.CanonicalBuilder;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.EntryCodes;
import dev.cuckoofilter.core.FilterFullException;
import dev.cuckoofilter.core.FilterParameters;
import dev.cuckoofilter.core.format.FilterFormat;
import dev.cuckoofilter.spark.expressions.CuckooKeyHash;
import dev.cuckoofilter.spark.hash.KeyTypes;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Literal$;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.aggregate.ImperativeAggregate;
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate;
import org.apache.spark.sql.types.BinaryType$;
import org.apache.spark.sql.types.DataType;
import scala.Option;
import scala.collection.IndexedSeq;
import scala.collection.Seq;

/**
 * {@code cuckoo_filter(key [, expectedItems [, fpp]])}: builds a cuckoo filter of the distinct non-null
 * keys in parallel and returns its bytes (docs/FORMAT.md).
 *
 * <p>Each partition collects the distinct entries of its keys and ships them as one sorted,
 * delta-encoded run (a few bytes per key, not a mostly empty table); partial results merge as sets; the
 * final step inserts the entries in canonical order ({@link CanonicalBuilder}). The filter's bytes
 * therefore depend only on the set of keys and the parameters, never on partitioning, order or retries.
 *
 * <p>With {@code expectedItems} the entries are entry codes of a filter sized for that many keys. Without
 * it they are 64-bit key hashes; the final step counts the distinct keys exactly, sizes the filter for
 * them, and inserts their entries one range of buckets at a time, so that it holds the partial results
 * (6.7 bytes a key at 100M keys), the table, and at most {@link #CODES_PER_PASS} entries being sorted.
 */
public final class CuckooFilterAggregate extends TypedImperativeAggregate<EntrySetBuffer>
    implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  public static final String NAME = "cuckoo_filter";
  /** False-positive rate used when none is given. */
  public static final double DEFAULT_FPP = 0.01;
  /**
   * Entry codes a build sized from the data sorts at a time (128 MB, and as much to sort them): above
   * this many keys it replays their hashes once per range of buckets instead of holding 16 bytes a key.
   */
  static final int CODES_PER_PASS = 1 << 23;

  private final Seq<Expression> keys;
  private final long expectedItems;
  private final double fpp;
  private final int mutableAggBufferOffset;
  private final int inputAggBufferOffset;
  private transient UnsafeProjection hashProjection;
  private transient FilterParameters parameters;

  /**
   * @param keys          the key columns; struct-typed keys count as their fields
   * @param expectedItems distinct keys to size for, or 0 to size from the data
   */
  public CuckooFilterAggregate(Seq<Expression> keys, long expectedItems, double fpp, int mutableAggBufferOffset,
      int inputAggBufferOffset) {
    this.keys = keys;
    this.expectedItems = expectedItems;
    this.fpp = fpp;
    this.mutableAggBufferOffset = mutableAggBufferOffset;
    this.inputAggBufferOffset = inputAggBufferOffset;
  }

  public static CuckooFilterAggregate create(List<Expression> keys, long expectedItems, double fpp) {
    return new CuckooFilterAggregate(seq(keys), expectedItems, fpp, 0, 0);
  }

  /**
   * Checks a false-positive rate before any job runs: in (0, 1), and not below what 32-bit fingerprints
   * can deliver.
   *
   * @throws IllegalArgumentException starting with "fpp" if no filter can be built at that rate
   */
  public static void checkFpp(double fpp) {
    if (!(fpp > 0 && fpp < 1)) {
      throw new IllegalArgumentException("fpp must be in (0, 1), got " + fpp);
    }
    try {
      CuckooFilter.builder().expectedItems(1).fpp(fpp).parameters();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new IllegalArgumentException("fpp " + fpp + " is not supported: " + e.getMessage(), e);
    }
  }

  /**
   * Checks a false-positive rate for a filter sized from the data, before any job runs: {@link #checkFpp},
   * and within what 32-bit fingerprints deliver in a table for any number of keys. A larger table is filled
   * to a higher design load and needs a higher rate (7e-10 is within reach of a table for one key, not of one
   * for 100 keys or more), so the rate is checked for the largest tables too, rather than failing the final
   * task, or not, depending on how many keys the data holds.
   *
   * @throws IllegalArgumentException starting with "fpp" if some number of keys could not be built at that rate
   */
  public static void checkFppSizedFromData(double fpp) {
    checkFpp(fpp);
    try {
      CuckooFilter.builder().expectedItems(ANY_SIZE_CHECKED).fpp(fpp).parameters();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new IllegalArgumentException("fpp " + fpp + " is not supported for a filter sized from the data, which "
          + "may hold any number of keys: " + e.getMessage() + "; give a higher fpp, or expectedItems", e);
    }
  }

  /**
   * Keys of a table in the largest design-load class (over 1,024 buckets), where the rate that 32-bit
   * fingerprints deliver no longer depends on the size: the strictest rate check for a filter of any size.
   */
  private static final long ANY_SIZE_CHECKED = 1L << 30;

  /**
   * Checks a size before any job runs: positive, and a table of that many keys at {@code fpp} (itself
   * valid, {@link #checkFpp}) within the supported number of buckets and small enough to be returned as one
   * BINARY value (a Java array, {@link CuckooFilter#MAX_BYTE_ARRAY_SIZE}).
   *
   * @throws IllegalArgumentException starting with "expectedItems" if no filter can be built for that many keys
   */
  public static void checkExpectedItems(long expectedItems, double fpp) {
    if (expectedItems <= 0) {
      throw new IllegalArgumentException("expectedItems must be positive, got " + expectedItems);
    }
    FilterParameters p;
    try {
      p = CuckooFilter.builder().expectedItems(expectedItems).fpp(fpp).parameters();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new IllegalArgumentException("expectedItems " + expectedItems + " is too large at fpp " + fpp + ": "
          + e.getMessage(), e);
    }
    // Else the whole job would run, and the final task fail (or run out of memory) building the table.
    long bytes = FilterFormat.serializedSize(p, p.stashCapacity());
    if (bytes > CuckooFilter.MAX_BYTE_ARRAY_SIZE) {
      throw new IllegalArgumentException("expectedItems " + expectedItems + " is too large at fpp " + fpp + ": the "
          + "filter would take " + bytes + " bytes, more than the " + CuckooFilter.MAX_BYTE_ARRAY_SIZE + " of a BINARY "
          + "value (one Java array); size it for fewer keys or a higher fpp");
    }
  }

  // ---------------------------------------------------------------- Product

  private List<Object> arguments() {
    return List.of(keys, expectedItems, fpp, mutableAggBufferOffset, inputAggBufferOffset);
  }

  @Override
  public int productArity() {
    return 5;
  }

  @Override
  public Object productElement(int n) {
    return arguments().get(n);
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof CuckooFilterAggregate;
  }

  @Override
  public boolean equals(Object o) {
    return this == o || (o instanceof CuckooFilterAggregate && arguments().equals(((CuckooFilterAggregate) o).arguments()));
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(arguments().toArray());
  }

  // ---------------------------------------------------------- Expression

  @Override
  public Seq<Expression> children() {
    return keys;
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    return new CuckooFilterAggregate(newChildren, expectedItems, fpp, mutableAggBufferOffset, inputAggBufferOffset);
  }

  @Override
  public String prettyName() {
    return NAME;
  }

  @Override
  public String toString() {
    List<Expression> ks = list(keys);
    return NAME + "(" + String.join(", ", ks.stream().map(Object::toString).toList())
        + (expectedItems > 0 ? ", expectedItems=" + expectedItems : "") + ", fpp=" + fpp + ")";
  }

  @Override
  public boolean nullable() {
    return false;
  }

  @Override
  public DataType dataType() {
    return BinaryType$.MODULE$;
  }

  /**
   * The result over no rows, an empty filter: Spark gives it to the rows of a correlated scalar (or lateral)
   * subquery that match no row, which were null otherwise, where the same subquery uncorrelated gives the
   * empty filter.
   */
  @Override
  public Option<Literal> defaultResult() {
    return Option.apply(Literal$.MODULE$.create(eval(createAggregationBuffer()), BinaryType$.MODULE$));
  }

  @Override
  public TypeCheckResult checkInputDataTypes() {
    List<Expression> ks = list(keys);
    if (ks.isEmpty()) {
      return new TypeCheckResult.TypeCheckFailure(NAME + ": needs a key argument");
    }
    for (int i = 0; i < ks.size(); i++) {
      Expression k = ks.get(i);
      // An untyped NULL key is a null key: left out, so its filter is empty.
      if (!KeyTypes.supported(k.dataType()) && !KeyTypes.untypedNull(k.dataType())) {
        // The key columns are the first arguments (filterOf(k1, k2, ...)); the SQL form takes one.
        return new TypeCheckResult.TypeCheckFailure(NAME + ": argument " + (i + 1) + " (key) has unsupported type "
            + k.dataType().simpleString() + "; keys can be " + KeyTypes.SUPPORTED_TYPES);
      }
    }
    return TypeCheckResult.TypeCheckSuccess$.MODULE$;
  }

  @Override
  public int mutableAggBufferOffset() {
    return mutableAggBufferOffset;
  }

  @Override
  public int inputAggBufferOffset() {
    return inputAggBufferOffset;
  }

  @Override
  public ImperativeAggregate withNewMutableAggBufferOffset(int offset) {
    return new CuckooFilterAggregate(keys, expectedItems, fpp, offset, inputAggBufferOffset);
  }

  @Override
  public ImperativeAggregate withNewInputAggBufferOffset(int offset) {
    return new CuckooFilterAggregate(keys, expectedItems, fpp, mutableAggBufferOffset, offset);
  }

  // ----------------------------------------------------------- aggregation

  /** Filter parameters when sized up front, else null. */
  private FilterParameters parameters() {
    if (parameters == null && expectedItems > 0) {
      parameters = CuckooFilter.builder().expectedItems(expectedItems).fpp(fpp).parameters();
    }
    return parameters;
  }

  @Override
  public EntrySetBuffer createAggregationBuffer() {
    return new EntrySetBuffer();
  }

  @Override
  public EntrySetBuffer update(EntrySetBuffer buffer, InternalRow input) {
    UnsafeProjection projection = hashProjection;
    if (projection == null) {
      projection = UnsafeProjection.create(seq(List.of(new CuckooKeyHash(keys, CuckooFilter.DEFAULT_SEED))));
      hashProjection = projection;
    }
    UnsafeRow row = projection.apply(input);
    if (!row.isNullAt(0)) {
      long hash = row.getLong(0);
      FilterParameters p = parameters();
      buffer.add(p == null ? hash : EntryCodes.ofHash(p, hash));
    }
    return buffer;
  }

  @Override
  public EntrySetBuffer merge(EntrySetBuffer buffer, EntrySetBuffer input) {
    buffer.merge(input);
    return buffer;
  }

  @Override
  public Object eval(EntrySetBuffer buffer) {
    return build(buffer).toByteArray();
  }

  /** The filter of the buffer's entries, in canonical layout. */
  CuckooFilter build(EntrySetBuffer buffer) {
    FilterParameters p = parameters();
    if (p == null) {
      return sizedFromData(buffer, fpp, CODES_PER_PASS);
    }
    // Entry codes, already sorted: streamed from the runs, merged on the fly, into the table.
    CanonicalBuilder builder = new CanonicalBuilder(p, true);
    try {
      buffer.forEachEntry(builder::addCode);
    } catch (FilterFullException e) {
      // The buffer holds distinct entries of this small table, and keys share entries: a lower bound.
      throw new IllegalStateException(NAME + ": the input has at least " + buffer.count() + " distinct keys, too "
          + "many for the " + expectedItems + " expectedItems the filter was sized for; raise expectedItems or omit it",
          e);
    }
    return builder.build();
  }

  /**
   * The filter of a buffer of key hashes, sized for their distinct count. The runs are then decoded once
   * per range of buckets, and each range's codes sorted and inserted, so that besides the runs the task
   * holds the table and at most {@code codesPerPass} codes (a key in several runs counts once per run).
   */
  static CuckooFilter sizedFromData(EntrySetBuffer buffer, double fpp, int codesPerPass) {
    long n = buffer.count();
    CanonicalBuilder builder = new CanonicalBuilder(
        CuckooFilter.builder().expectedItems(Math.max(1, n)).fpp(fpp).parameters(), true);
    builder.addHashesInPasses(buffer::forEachHeld, buffer.heldCount(), codesPerPass);
    return builder.build();
  }

  @Override
  public byte[] serialize(EntrySetBuffer buffer) {
    return buffer.serialize();
  }

  @Override
  public EntrySetBuffer deserialize(byte[] bytes) {
    return EntrySetBuffer.deserialize(bytes);
  }

}
