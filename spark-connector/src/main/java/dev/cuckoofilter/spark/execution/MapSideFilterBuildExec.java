package dev.cuckoofilter.spark.execution;

import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.execution.SQLExecution$;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.ShuffleQueryStageExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeLike;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import org.apache.spark.sql.types.BinaryType$;
import org.apache.spark.sql.types.DataType;
import scala.collection.IndexedSeq;
import scala.collection.Seq;
import scala.reflect.ClassTag$;

/**
 * {@code CuckooMapSideFilterBuild}: the runtime filter of a join, built on the driver from the partial
 * builds that a {@link FilterTapExec} collected while the map tasks of the join's shuffle of its creation
 * side ran. Replaces {@code cuckoo_filter} aggregation over that shuffle (a stage that reads the shuffled
 * rows again, then a one-task stage that merges), so the probe side starts sooner.
 *
 * <p>Its child is the shuffle (a query stage once adaptive execution has run it). If the stage that ran is
 * not tapped for this very aggregate, or some partition's contribution is missing or gave up (it outgrew
 * the byte budget), a job reads the shuffle and builds the filter on one executor instead: the result is the
 * same bytes either way, since the build is a canonical function of the set of keys.
 */
public final class MapSideFilterBuildExec extends JavaSparkPlan {
  private static final long serialVersionUID = 1L;

  private final SparkPlan child;
  private final CuckooFilterAggregate aggregate;
  private final Seq<Attribute> output;
  private final Map<String, SQLMetric> metrics;
  private transient volatile InternalRow result;

  /**
   * @param aggregate the filter's aggregate, its keys bound to {@code child}'s output
   * @param output    one binary attribute: the filter's bytes
   */
  public MapSideFilterBuildExec(SparkPlan child, CuckooFilterAggregate aggregate, Seq<Attribute> output) {
    this.child = child;
    this.aggregate = aggregate;
    this.output = output;
    this.metrics = Map.of(
        "tappedPartitions", SQLMetrics.createMetric(sparkContext(), "map partitions built map-side"),
        "shuffleReads", SQLMetrics.createMetric(sparkContext(), "builds that read the shuffle"));
  }

  @Override
  protected List<Object> arguments() {
    return List.of(child, aggregate, output);
  }

  @Override
  protected List<Object> identity() {
    return arguments();
  }

  @Override
  public String nodeName() {
    return "CuckooMapSideFilterBuild";
  }

  @Override
  public String simpleString(int maxFields) {
    return nodeName() + " " + aggregate;
  }

  @Override
  public Seq<Attribute> output() {
    return output;
  }

  @Override
  public Seq<SparkPlan> children() {
    return seq(List.of(child));
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    MapSideFilterBuildExec copy = new MapSideFilterBuildExec(newChildren.apply(0), aggregate, output);
    copy.copyTagsFrom(this);
    return copy;
  }

  @Override
  public scala.collection.immutable.Map<String, SQLMetric> metrics() {
    scala.collection.immutable.Map<String, SQLMetric> m = scala.collection.immutable.Map$.MODULE$.empty();
    for (Map.Entry<String, SQLMetric> e : metrics.entrySet()) {
      m = m.updated(e.getKey(), e.getValue());
    }
    return m;
  }

  /** Map partitions whose keys came from the tap (for tests and the UI). */
  public long tappedPartitions() {
    return metrics.get("tappedPartitions").value();
  }

  /** 1 if the filter was built by reading the shuffle instead. */
  public long shuffleReads() {
    return metrics.get("shuffleReads").value();
  }

  @Override
  public RDD<InternalRow> doExecute() {
    return sparkContext().parallelize(seq(List.of(filterRow())), 1, ClassTag$.MODULE$.apply(InternalRow.class));
  }

  @Override
  public InternalRow[] executeCollect() {
    return new InternalRow[] {filterRow()};
  }

  @Override
  public InternalRow[] executeTake(int n) {
    return n <= 0 ? new InternalRow[0] : executeCollect();
  }

  /** The one result row (the filter's bytes), built once. */
  private InternalRow filterRow() {
    InternalRow r = result;
    if (r == null) {
      synchronized (this) {
        r = result;
        if (r == null) {
          // An UnsafeRow, as the callers (a subquery's result, a shuffle) expect.
          UnsafeProjection toUnsafe = UnsafeProjection.create(new DataType[] {BinaryType$.MODULE$});
          r = toUnsafe.apply(new GenericInternalRow(new Object[] {buildFilter()})).copy();
          // Driver-side metrics reach the UI only when posted.
          String executionId = sparkContext().getLocalProperty(SQLExecution$.MODULE$.EXECUTION_ID_KEY());
          SQLMetrics.postDriverMetricUpdates(sparkContext(), executionId, seq(new ArrayList<>(metrics.values())));
          result = r;
        }
      }
    }
    return r;
  }

  /**
   * The filter's bytes: merged on the driver from the tap's parts when they are complete (their size is
   * within the tap's budget), else built by a job that reads the shuffle and merges on one executor, so the
   * driver receives no more than the filter.
   */
  private byte[] buildFilter() {
    List<byte[]> parts = tappedParts();
    if (parts != null) {
      metrics.get("tappedPartitions").set(parts.size());
      return PartialBuilds.merge(aggregate, parts.iterator());
    }
    metrics.get("shuffleReads").set(1);
    return PartialBuilds.mergeOnOneExecutor(PartialBuilds.parts(child.execute(), aggregate, Long.MAX_VALUE), aggregate);
  }

  /** Every map partition's part from the tap of the stage that ran, or null if any is missing. */
  private List<byte[]> tappedParts() {
    SparkPlan stage = child instanceof AQEShuffleReadExec ? ((AQEShuffleReadExec) child).child() : child;
    if (!(stage instanceof ShuffleQueryStageExec)) {
      return null;
    }
    ShuffleExchangeLike shuffle = ((ShuffleQueryStageExec) stage).shuffle();
    if (!(shuffle instanceof ShuffleExchangeExec) || !(((ShuffleExchangeExec) shuffle).child() instanceof FilterTapExec)) {
      return null;
    }
    FilterTapExec tap = (FilterTapExec) ((ShuffleExchangeExec) shuffle).child();
    List<byte[]> parts = tap.aggregate().equals(aggregate) ? tap.accumulator().complete(shuffle.numMappers()) : null;
    if (parts != null) {
      tap.accumulator().reset(); // the filter is built once; do not keep the parts alive with the plan
    }
    return parts;
  }
}
