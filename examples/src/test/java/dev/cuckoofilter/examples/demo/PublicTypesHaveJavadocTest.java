package dev.cuckoofilter.examples.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every public or protected type of the published modules (filter-core, spark-connector) and of this
 * module has a Javadoc comment: top-level and nested classes, interfaces, records, enums and annotations
 * that code outside their package can see. Sources are parsed with the JDK's compiler API, not matched
 * with patterns.
 */
class PublicTypesHaveJavadocTest {
  static final Path ROOT = Path.of(System.getProperty("repository.root", "..")).toAbsolutePath().normalize();
  static final List<String> SOURCE_ROOTS = List.of("filter-core/src/main/java", "spark-connector/src/main/java",
      "examples/src/main/java");

  @Test
  void everyVisibleTypeHasAClassComment() throws IOException {
    List<Path> files = new ArrayList<>();
    for (String root : SOURCE_ROOTS) {
      try (Stream<Path> paths = Files.walk(ROOT.resolve(root))) {
        paths.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
      }
    }
    assertTrue(files.size() > 50, "found only " + files.size() + " source files under " + ROOT);

    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    List<String> missing = new ArrayList<>();
    int checked = 0;
    try (StandardJavaFileManager fileManager = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      Iterable<? extends JavaFileObject> units = fileManager.getJavaFileObjectsFromPaths(files);
      JavacTask task = (JavacTask) compiler.getTask(null, fileManager, null, List.of("-proc:none"), null, units);
      DocTrees docTrees = DocTrees.instance(task);
      for (CompilationUnitTree unit : task.parse()) {
        VisibleTypes scanner = new VisibleTypes(docTrees, ROOT.relativize(Path.of(unit.getSourceFile().toUri())));
        scanner.scan(unit, null);
        missing.addAll(scanner.missing);
        checked += scanner.checked;
      }
    }
    assertTrue(checked > 50, "checked only " + checked + " types");
    assertEquals(List.of(), missing, "public or protected types without a Javadoc comment");
  }

  /** Collects the types visible outside their package that have no doc comment. */
  private static final class VisibleTypes extends TreePathScanner<Void, Void> {
    final DocTrees docTrees;
    final Path file;
    final List<String> missing = new ArrayList<>();
    int checked;

    VisibleTypes(DocTrees docTrees, Path file) {
      this.docTrees = docTrees;
      this.file = file;
    }

    @Override
    public Void visitClass(ClassTree type, Void unused) {
      if (!visible(getCurrentPath())) {
        return null; // nothing inside a hidden type is visible either
      }
      checked++;
      if (docTrees.getDocCommentTree(getCurrentPath()) == null) {
        missing.add(file + ": " + type.getKind().toString().toLowerCase() + " " + type.getSimpleName());
      }
      return super.visitClass(type, unused);
    }

    /** Public or protected, or a member of an interface (implicitly public), inside a visible type. */
    private static boolean visible(TreePath path) {
      ClassTree type = (ClassTree) path.getLeaf();
      Tree parent = path.getParentPath().getLeaf();
      boolean interfaceMember = parent instanceof ClassTree enclosing
          && (enclosing.getKind() == Tree.Kind.INTERFACE || enclosing.getKind() == Tree.Kind.ANNOTATION_TYPE);
      var modifiers = type.getModifiers().getFlags();
      return interfaceMember || modifiers.contains(Modifier.PUBLIC) || modifiers.contains(Modifier.PROTECTED);
    }
  }
}
