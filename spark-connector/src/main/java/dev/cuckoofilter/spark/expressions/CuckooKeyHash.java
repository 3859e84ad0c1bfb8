package dev.cuckoofilter.spark.expressions;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;

import dev.cuckoofilter.spark.hash.KeyHashing;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.LongType$;
import scala.collection.IndexedSeq;
import scala.collection.Seq;

/**
 * The 64-bit hash of a (composite) key under the hash contract, null if any component is null; struct
 * keys count as their fields. Used by
 * the build aggregate through a generated projection, so hashing a row neither boxes nor dispatches on
 * types.
 */
public final class CuckooKeyHash extends JavaExpression {
  private final Seq<Expression> keys;
  private final long seed;
  private transient List<Expression> components;

  public CuckooKeyHash(Seq<Expression> keys, long seed) {
    this.keys = keys;
    this.seed = seed;
  }

  @Override
  protected List<Object> arguments() {
    return List.of(keys, seed);
  }

  @Override
  public Seq<Expression> children() {
    return keys;
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    return new CuckooKeyHash(newChildren, seed);
  }

  @Override
  public boolean nullable() {
    return true;
  }

  @Override
  public DataType dataType() {
    return LongType$.MODULE$;
  }

  @Override
  public String prettyName() {
    return "cuckoo_key_hash";
  }

  @Override
  public Object eval(InternalRow input) {
    long h = seed;
    if (components == null) {
      components = KeyHashing.flatten(list(keys));
    }
    for (Expression key : components) {
      Object v = key.eval(input);
      if (v == null) {
        return null;
      }
      h = KeyHashing.hashObject(v, key.dataType(), h);
    }
    return h;
  }

  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    StringBuilder code = new StringBuilder();
    code.append("boolean ").append(ev.isNull()).append(" = false;\n");
    code.append("long ").append(ev.value()).append(" = ").append(seed).append("L;\n");
    for (Expression key : KeyHashing.flatten(list(keys))) {
      ExprCode k = key.genCode(ctx);
      code.append(k.code()).append('\n');
      code.append("if (").append(k.isNull()).append(") { ").append(ev.isNull()).append(" = true; } else { ")
          .append(KeyHashing.genFold(key.dataType(), k.value().toString(), ev.value().toString())).append(" }\n");
    }
    return ev.copy(CuckooMightContain.block(code.toString()), ev.isNull(), ev.value());
  }
}
