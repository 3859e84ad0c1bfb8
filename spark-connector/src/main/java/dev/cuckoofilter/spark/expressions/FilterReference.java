package dev.cuckoofilter.spark.expressions;

import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.types.BinaryType$;
import org.apache.spark.sql.types.DataType;
import scala.collection.IndexedSeq;
import scala.collection.Seq;

/**
 * A filter given to a probe by reference (a broadcast made by the DataFrame API) rather than as bytes.
 * Only {@link CuckooMightContain} consumes it; it shows in plans as {@code cuckoo_filter[...]}.
 */
public final class FilterReference extends JavaExpression {
  private final FilterHandle handle;

  public FilterReference(FilterHandle handle) {
    this.handle = handle;
  }

  public FilterHandle handle() {
    return handle;
  }

  @Override
  protected List<Object> arguments() {
    return List.of(handle);
  }

  @Override
  public Seq<Expression> children() {
    return seq(List.of());
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    return this;
  }

  @Override
  public boolean nullable() {
    return false;
  }

  @Override
  public DataType dataType() {
    return BinaryType$.MODULE$;
  }

  @Override
  public Object eval(InternalRow input) {
    throw new UnsupportedOperationException("a cuckoo filter reference is only read by cuckoo_might_contain");
  }

  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    throw new UnsupportedOperationException("a cuckoo filter reference is only read by cuckoo_might_contain");
  }

  @Override
  public String toString() {
    return "cuckoo_filter[" + handle.describe() + "]";
  }

  @Override
  public String sql() {
    return toString();
  }
}
