package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ExpressionSet;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Statistics;
import org.apache.spark.sql.catalyst.plans.logical.UnaryNode;
import scala.Option;
import scala.collection.IndexedSeq;
import scala.collection.Seq;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractPartialFunction;

/**
 * A per-query cuckoo runtime filter hint, as the analyzer resolved it ({@link ResolveCuckooFilterHints}):
 * {@code CUCKOO_FILTER} forces a filter on the plan below (the side of a join to prune), {@code
 * NO_CUCKOO_FILTER} forbids any filter on it or on a join inside it. The node changes nothing: its output,
 * rows, statistics and constraints are its child's. It carries the hint through the optimizer to {@link
 * CuckooRuntimeFilterRule}, which reads and removes every one of them ({@link #strip}), so physical planning
 * never sees it ({@link CuckooFilterHintStrategy} plans one that got there anyway, should the rule be
 * excluded, as its child). Filters above it are pushed below it ({@link PushFiltersBelowCuckooFilterHints}),
 * so that it does not hold back predicate push-down meanwhile.
 *
 * <p>A Java plan node, as the execution package's {@code JavaSparkPlan} operators: the Product members and
 * structural equality that Scala generates for a case class come from the constructor arguments, in order.
 * It is a {@link UnaryNode}, so that generic rules (join strategy hints pulled up to their join, column
 * pruning) see through it.
 */
public final class CuckooFilterHint extends LogicalPlan implements UnaryNode {
  private static final long serialVersionUID = 1L;

  /** The two hints. */
  public enum Kind {
    /** {@code CUCKOO_FILTER}: prune this side wherever that is safe, whatever the sizes and settings. */
    FORCE("CUCKOO_FILTER"),
    /** {@code NO_CUCKOO_FILTER}: no filter on this side, nor on any join inside it. */
    FORBID("NO_CUCKOO_FILTER");

    private final String hintName;

    Kind(String hintName) {
      this.hintName = hintName;
    }

    /** The hint's name in SQL and {@code Dataset.hint}, upper case. */
    public String hintName() {
      return hintName;
    }

    /** The kind named {@code name} (any case), or null for another hint. */
    static Kind named(String name) {
      String upper = name.toUpperCase(Locale.ROOT);
      for (Kind k : values()) {
        if (k.hintName.equals(upper)) {
          return k;
        }
      }
      return null;
    }

    @Override
    public String toString() {
      return hintName;
    }
  }

  private final LogicalPlan child;
  private final Kind kind;
  private final String target;
  private final double fpp;

  /**
   * @param kind   force or forbid
   * @param target the relation name as the hint gave it, or {@code ""} for a hint without arguments (on the
   *               whole plan below); only for messages and the plan string
   */
  public CuckooFilterHint(LogicalPlan child, Kind kind, String target) {
    this(child, kind, target, Double.NaN);
  }

  /**
   * A hint that also sets the forced filter's false-positive rate (the DataFrame API's one-call join).
   *
   * @param fpp the filter's false-positive rate, or NaN for the session's {@link RuntimeFilterConf#FPP}
   */
  public CuckooFilterHint(LogicalPlan child, Kind kind, String target, double fpp) {
    this.child = Objects.requireNonNull(child);
    this.kind = Objects.requireNonNull(kind);
    this.target = Objects.requireNonNull(target);
    this.fpp = fpp;
  }

  @Override
  public LogicalPlan child() {
    return child;
  }

  public Kind kind() {
    return kind;
  }

  public String target() {
    return target;
  }

  /** The forced filter's false-positive rate, or NaN for the session's. */
  public double fpp() {
    return fpp;
  }

  /** The hint as written: {@code CUCKOO_FILTER(o)}, or {@code NO_CUCKOO_FILTER} without arguments. */
  public String label() {
    String args = Double.isNaN(fpp) ? target : target.isEmpty() ? "fpp=" + fpp : target + ", fpp=" + fpp;
    return args.isEmpty() ? kind.hintName() : kind.hintName() + "(" + args + ")";
  }

  @Override
  public Seq<LogicalPlan> children() {
    return seq(List.of(child));
  }

  @Override
  public Seq<Attribute> output() {
    return child.output();
  }

  @Override
  public Seq<Attribute> metadataOutput() {
    return child.metadataOutput();
  }

  @Override
  public Option<Object> maxRows() {
    return child.maxRows();
  }

  @Override
  public Option<Object> maxRowsPerPartition() {
    return child.maxRowsPerPartition();
  }

  /** The child's: the hint must not change any estimate (they decide join strategies and the rule itself). */
  @Override
  public Statistics stats() {
    return child.stats();
  }

  @Override
  public ExpressionSet validConstraints() {
    return child.constraints();
  }

  @Override
  public scala.collection.immutable.Set<ExpressionSet> distinctKeys() {
    return child.distinctKeys();
  }

  @Override
  public LogicalPlan withNewChildInternal(LogicalPlan newChild) {
    return new CuckooFilterHint(newChild, kind, target, fpp);
  }

  @Override
  public LogicalPlan withNewChildrenInternal(IndexedSeq<LogicalPlan> newChildren) {
    return new CuckooFilterHint(newChildren.apply(0), kind, target, fpp);
  }

  @Override
  public String simpleString(int maxFields) {
    return nodeName() + " " + label();
  }

  @Override
  public int productArity() {
    return 4;
  }

  @Override
  public Object productElement(int n) {
    switch (n) {
      case 0:
        return child;
      case 1:
        return kind;
      case 2:
        return target;
      case 3:
        return fpp;
      default:
        throw new IndexOutOfBoundsException(String.valueOf(n));
    }
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof CuckooFilterHint;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CuckooFilterHint)) {
      return false;
    }
    CuckooFilterHint h = (CuckooFilterHint) o;
    return kind == h.kind && target.equals(h.target) && Double.compare(fpp, h.fpp) == 0 && child.equals(h.child);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, target, fpp, child);
  }

  /** Whether {@code plan} or one of its subqueries holds a hint node. */
  static boolean presentIn(LogicalPlan plan) {
    return plan.exists(new AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        if (node instanceof CuckooFilterHint) {
          return true;
        }
        for (org.apache.spark.sql.catalyst.expressions.Expression e : list(node.expressions())) {
          if (e.exists(new AbstractFunction1<org.apache.spark.sql.catalyst.expressions.Expression, Object>() {
            @Override
            public Object apply(org.apache.spark.sql.catalyst.expressions.Expression x) {
              return x instanceof SubqueryExpression && presentIn(((SubqueryExpression) x).plan());
            }
          })) {
            return true;
          }
        }
        return false;
      }
    });
  }

  /** {@code plan} without its hint nodes, in subqueries too ({@code plan} itself if it has none). */
  static LogicalPlan strip(LogicalPlan plan) {
    if (!presentIn(plan)) {
      return plan;
    }
    return plan.transformUpWithSubqueries(new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
      @Override
      public boolean isDefinedAt(LogicalPlan p) {
        return p instanceof CuckooFilterHint;
      }

      @Override
      public LogicalPlan apply(LogicalPlan p) {
        return ((CuckooFilterHint) p).child();
      }
    });
  }
}
