package dev.cuckoofilter.spark.execution;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;

import dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate;
import dev.cuckoofilter.spark.aggregate.EntrySetBuffer;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import scala.Option;
import scala.collection.Iterator;
import scala.collection.JavaConverters;
import scala.collection.Seq;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;
import scala.runtime.AbstractPartialFunction;
import scala.runtime.BoxedUnit;

/**
 * The two halves of a {@code cuckoo_filter} build outside an aggregate operator: each partition's partial
 * build of its rows, serialized ({@code EntrySetBuffer} bytes), and the merge of the parts into the filter.
 * The filter is a canonical function of the set of keys, so it is the same bytes however the rows were
 * split into parts and wherever the parts are merged.
 */
public final class PartialBuilds {
  /** A partition's distinct keys serialize to at least about this many bytes each (deltas of sorted hashes). */
  public static final int MIN_BYTES_PER_KEY = 4;
  /** How far one partition may exceed an even share of a byte budget before it gives up. */
  private static final int SKEW_ALLOWANCE = 4;

  private PartialBuilds() {}

  /**
   * One serialized partial build per partition of {@code rows}, or null for a partition whose part would
   * be over {@code maxPartBytes} (it stops collecting once its distinct keys alone say so).
   *
   * @param aggregate the filter's aggregate, its keys bound to the rows' positions
   */
  public static RDD<byte[]> parts(RDD<InternalRow> rows, CuckooFilterAggregate aggregate, long maxPartBytes) {
    return rows.mapPartitionsInternal(new Partial(aggregate, maxPartBytes), false, ClassTag$.MODULE$.apply(byte[].class));
  }

  /**
   * What one of {@code partitions} partitions may send of a {@code budget} for all of them: four even shares
   * (skew is allowed, a blow-up is not), so that what arrives before the parts give up stays bounded.
   */
  public static long maxPartBytes(long budget, int partitions) {
    return Math.min(budget, budget / Math.max(1, partitions) * SKEW_ALLOWANCE);
  }

  /**
   * The parts, collected to the driver as their tasks finish, in partition order; null if one of them is null (its
   * partition gave up) or if they take more than {@code budget} bytes in all. Those that arrived are then dropped,
   * so the driver holds at most the budget and one part, never all the parts of partitions that each stayed within
   * their shares.
   */
  public static byte[][] collectWithin(RDD<byte[]> parts, long budget) {
    byte[][] collected = new byte[parts.getNumPartitions()][];
    boolean[] over = {false};
    long[] total = {0};
    parts.sparkContext().runJob(parts, new OnlyPart(), new AbstractFunction2<Object, byte[], BoxedUnit>() {
      @Override
      public BoxedUnit apply(Object partition, byte[] part) {
        synchronized (collected) {
          if (!over[0]) {
            if (part == null || total[0] + part.length > budget) {
              over[0] = true;
              java.util.Arrays.fill(collected, null);
            } else {
              collected[(Integer) partition] = part;
              total[0] += part.length;
            }
          }
        }
        return BoxedUnit.UNIT;
      }
    }, ClassTag$.MODULE$.apply(byte[].class));
    synchronized (collected) {
      return over[0] ? null : collected;
    }
  }

  /** Merges parts into the filter: its bytes (the aggregate's final result). */
  public static byte[] merge(CuckooFilterAggregate aggregate, java.util.Iterator<byte[]> parts) {
    EntrySetBuffer buffer = new EntrySetBuffer();
    while (parts.hasNext()) {
      buffer.merge(EntrySetBuffer.deserialize(parts.next()));
    }
    return (byte[]) aggregate.eval(buffer);
  }

  /** Merges the parts on one executor, so that the driver receives the filter and nothing more. */
  public static byte[] mergeOnOneExecutor(RDD<byte[]> parts, CuckooFilterAggregate aggregate) {
    Object filters = parts.coalesce(1, true, Option.empty(), null)
        .mapPartitionsInternal(new Final(aggregate), false, ClassTag$.MODULE$.apply(byte[].class))
        .collect();
    return ((byte[][]) filters)[0];
  }

  /** {@code aggregate} with its keys bound to positions of {@code input}. */
  public static CuckooFilterAggregate bind(CuckooFilterAggregate aggregate, Seq<Attribute> input) {
    List<Attribute> attributes = list(input);
    return (CuckooFilterAggregate) aggregate.transform(new AbstractPartialFunction<Expression, Expression>() {
      @Override
      public boolean isDefinedAt(Expression e) {
        return e instanceof Attribute && ordinal(e) >= 0;
      }

      @Override
      public Expression apply(Expression e) {
        return new BoundReference(ordinal(e), e.dataType(), e.nullable());
      }

      private int ordinal(Expression e) {
        for (int i = 0; i < attributes.size(); i++) {
          if (attributes.get(i).exprId().equals(((Attribute) e).exprId())) {
            return i;
          }
        }
        return -1;
      }
    });
  }

  /** One partition's partial build, serialized, or null past the byte limit. */
  private static final class Partial extends AbstractFunction1<Iterator<InternalRow>, Iterator<byte[]>>
      implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final CuckooFilterAggregate aggregate;
    private final long maxPartBytes;

    Partial(CuckooFilterAggregate aggregate, long maxPartBytes) {
      this.aggregate = aggregate;
      this.maxPartBytes = maxPartBytes;
    }

    @Override
    public Iterator<byte[]> apply(Iterator<InternalRow> rows) {
      // The part holds the distinct keys, not the rows: a partition of a fact table repeats few keys many times.
      long maxKeys = maxPartBytes / MIN_BYTES_PER_KEY;
      EntrySetBuffer buffer = new EntrySetBuffer();
      byte[] part = null;
      boolean over = false;
      while (!over && rows.hasNext()) {
        aggregate.update(buffer, rows.next());
        over = buffer.distinctLowerBound() > maxKeys;
      }
      if (!over) {
        part = buffer.serialize();
        if (part.length > maxPartBytes) {
          part = null;
        }
      }
      java.util.List<byte[]> out = new java.util.ArrayList<>(1);
      out.add(part);
      return JavaConverters.asScalaIteratorConverter(out.iterator()).asScala();
    }
  }

  /** The one part of a partition of {@link #parts}. */
  private static final class OnlyPart extends AbstractFunction1<Iterator<byte[]>, byte[]>
      implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public byte[] apply(Iterator<byte[]> parts) {
      return parts.next();
    }
  }

  /** Merges a partition of parts into the filter's bytes. */
  private static final class Final extends AbstractFunction1<Iterator<byte[]>, Iterator<byte[]>>
      implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final CuckooFilterAggregate aggregate;

    Final(CuckooFilterAggregate aggregate) {
      this.aggregate = aggregate;
    }

    @Override
    public Iterator<byte[]> apply(Iterator<byte[]> parts) {
      byte[] filter = merge(aggregate, JavaConverters.asJavaIteratorConverter(parts).asJava());
      return JavaConverters.asScalaIteratorConverter(List.of(filter).iterator()).asScala();
    }
  }
}
