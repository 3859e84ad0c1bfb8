package dev.cuckoofilter.spark.execution;

import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate;
import dev.cuckoofilter.spark.aggregate.EntrySetBuffer;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import scala.collection.AbstractIterator;
import scala.collection.IndexedSeq;
import scala.collection.Iterator;
import scala.collection.Seq;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;

/**
 * {@code CuckooFilterTap}: passes its child's rows through unchanged and, on the way, collects the partial
 * build of a {@code cuckoo_filter} aggregate over them, one per partition, into a
 * {@link FilterTapAccumulator}. Placed under the shuffle of a join's creation side, it lets the runtime
 * filter be built from that shuffle's map tasks ({@link MapSideFilterBuildExec}) instead of a stage that
 * reads the shuffle again.
 */
public final class FilterTapExec extends JavaSparkPlan {
  private static final long serialVersionUID = 1L;

  private final SparkPlan child;
  private final CuckooFilterAggregate aggregate;
  private final FilterTapAccumulator accumulator;

  /**
   * @param aggregate   the filter's aggregate, its keys bound to {@code child}'s output
   * @param accumulator registered with the SparkContext
   */
  public FilterTapExec(SparkPlan child, CuckooFilterAggregate aggregate, FilterTapAccumulator accumulator) {
    this.child = child;
    this.aggregate = aggregate;
    this.accumulator = accumulator;
  }

  public SparkPlan child() {
    return child;
  }

  CuckooFilterAggregate aggregate() {
    return aggregate;
  }

  FilterTapAccumulator accumulator() {
    return accumulator;
  }

  @Override
  protected List<Object> arguments() {
    return List.of(child, aggregate, accumulator);
  }

  @Override
  protected List<Object> identity() {
    return List.of(child, aggregate);
  }

  @Override
  public String nodeName() {
    return "CuckooFilterTap";
  }

  @Override
  public String simpleString(int maxFields) {
    return nodeName() + " " + aggregate;
  }

  @Override
  public Seq<Attribute> output() {
    return child.output();
  }

  @Override
  public Partitioning outputPartitioning() {
    return child.outputPartitioning();
  }

  @Override
  public Seq<SortOrder> outputOrdering() {
    return child.outputOrdering();
  }

  @Override
  public Seq<SparkPlan> children() {
    return seq(List.of(child));
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return new FilterTapExec(newChildren.apply(0), aggregate, accumulator);
  }

  @Override
  public SparkPlan doCanonicalize() {
    return new FilterTapExec(child.canonicalized(), aggregate, accumulator);
  }

  @Override
  public RDD<InternalRow> doExecute() {
    RDD<InternalRow> rows = child.execute();
    long maxPartBytes = PartialBuilds.maxPartBytes(accumulator.maxBytes(), rows.getNumPartitions());
    return rows.mapPartitionsWithIndexInternal(new Tap(aggregate, accumulator, maxPartBytes), true, false,
        ClassTag$.MODULE$.apply(InternalRow.class));
  }

  /** The per-partition function: wraps the rows in a {@link TapIterator}. */
  private static final class Tap extends AbstractFunction2<Object, Iterator<InternalRow>, Iterator<InternalRow>>
      implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final CuckooFilterAggregate aggregate;
    private final FilterTapAccumulator accumulator;
    private final long maxPartBytes;

    Tap(CuckooFilterAggregate aggregate, FilterTapAccumulator accumulator, long maxPartBytes) {
      this.aggregate = aggregate;
      this.accumulator = accumulator;
      this.maxPartBytes = maxPartBytes;
    }

    @Override
    public Iterator<InternalRow> apply(Object partition, Iterator<InternalRow> rows) {
      return new TapIterator(rows, aggregate, accumulator, maxPartBytes, TaskContext.getPartitionId());
    }
  }

  /**
   * Feeds each row to the partial build; when the rows run out (a shuffle writer reads them all) sends the
   * partition's part to the accumulator, or the mark that it gave up: its part is over {@code maxPartBytes}
   * (or its distinct keys are so many that it would be, so it stops collecting early; the part holds the keys,
   * not the rows, and a fact-like side repeats few keys many times).
   */
  private static final class TapIterator extends AbstractIterator<InternalRow> {
    private final Iterator<InternalRow> rows;
    private final CuckooFilterAggregate aggregate;
    private final FilterTapAccumulator accumulator;
    private final long maxPartBytes;
    private final long maxKeys;
    private final int partition;
    private EntrySetBuffer buffer = new EntrySetBuffer();
    private boolean sent;

    TapIterator(Iterator<InternalRow> rows, CuckooFilterAggregate aggregate, FilterTapAccumulator accumulator,
        long maxPartBytes, int partition) {
      this.rows = rows;
      this.aggregate = aggregate;
      this.accumulator = accumulator;
      this.maxPartBytes = maxPartBytes;
      this.maxKeys = maxPartBytes / PartialBuilds.MIN_BYTES_PER_KEY;
      this.partition = partition;
    }

    @Override
    public boolean hasNext() {
      boolean more = rows.hasNext();
      if (!more && !sent) {
        sent = true;
        byte[] part = buffer == null ? null : buffer.serialize();
        boolean gaveUp = part == null || part.length > maxPartBytes;
        accumulator.add(new FilterTapAccumulator.Part(partition, gaveUp ? null : part));
        buffer = null;
      }
      return more;
    }

    @Override
    public InternalRow next() {
      InternalRow row = rows.next();
      if (buffer != null) {
        aggregate.update(buffer, row);
        if (buffer.distinctLowerBound() > maxKeys) {
          buffer = null; // too many keys for the driver's budget: the filter is built from the shuffle instead
        }
      }
      return row;
    }
  }
}
