package dev.cuckoofilter.spark.execution;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * Physical operators written in Java, the plan-node counterpart of {@code JavaExpression}: supplies what the
 * Scala compiler generates for a case class (Product members, structural equality) from the constructor
 * arguments. Equality leaves out run-time state such as accumulators, so that two plans doing the same work
 * compare equal (Spark's exchange reuse relies on it).
 */
abstract class JavaSparkPlan extends SparkPlan {
  private static final long serialVersionUID = 1L;

  /** The constructor arguments, in order (Product elements and the tree string). */
  protected abstract List<Object> arguments();

  /** What equality compares: the arguments that decide the result. */
  protected abstract List<Object> identity();

  @Override
  public int productArity() {
    return arguments().size();
  }

  @Override
  public Object productElement(int n) {
    return arguments().get(n);
  }

  @Override
  public boolean canEqual(Object that) {
    return that != null && that.getClass() == getClass();
  }

  @Override
  public boolean equals(Object o) {
    return this == o || (canEqual(o) && identity().equals(((JavaSparkPlan) o).identity()));
  }

  @Override
  public int hashCode() {
    return getClass().hashCode() * 31 + Arrays.hashCode(identity().toArray());
  }

}
