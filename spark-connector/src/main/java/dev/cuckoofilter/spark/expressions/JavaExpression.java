package dev.cuckoofilter.spark.expressions;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * Catalyst expressions written in Java: Catalyst trees are Scala case classes, so this supplies what
 * the compiler would generate (Product members, structural equality) from one list of constructor
 * arguments. Subclasses extend {@code Expression} directly: from Java, the Unary/Binary helper traits
 * cannot be used (their final bridge method {@code withNewChildrenInternal}).
 */
public abstract class JavaExpression extends Expression implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  /** The constructor arguments, in order: Product elements, equality and the tree string. */
  protected abstract List<Object> arguments();

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
    return this == o || (canEqual(o) && arguments().equals(((JavaExpression) o).arguments()));
  }

  @Override
  public int hashCode() {
    return getClass().hashCode() * 31 + Arrays.hashCode(arguments().toArray());
  }


}
