package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * When two jars bundled into {@code gpusched.jar} hold the same path, the shade plugin keeps one of
 * them and only warns ("overlapping resources"): the other is silently lost, e.g. a library's license.
 * So every such path must be filtered out or merged by a transformer in this module's {@code pom.xml}.
 * This reads the jars the shade plugin bundles (the runtime class path, written by the dependency
 * plugin before the tests) and that configuration, and names every shared path that neither handles.
 */
class ShadedJarInputsTest {
    /** Tests run in the module's directory. */
    private static final Path MODULE = Path.of("");

    @Test
    void everyPathThatTwoBundledJarsShareIsFilteredOrMerged() throws Exception {
        List<Path> inputs = new ArrayList<>();
        inputs.add(MODULE.resolve("target/classes"));
        String classPath = Files.readString(MODULE.resolve("target/shade-inputs.classpath")).strip();
        for (String entry : classPath.split(File.pathSeparator)) {
            inputs.add(Path.of(entry));
        }
        assertTrue(inputs.stream().anyMatch(p -> p.toString().contains("jna")), "jna is bundled: " + inputs);

        Map<String, List<Path>> holders = new TreeMap<>();
        for (Path input : inputs) {
            for (String file : files(input)) {
                holders.computeIfAbsent(file, k -> new ArrayList<>()).add(input);
            }
        }
        Shade shade = Shade.read(MODULE.resolve("pom.xml"));
        List<String> lost = holders.entrySet().stream()
                .filter(e -> e.getValue().size() > 1 && !shade.handles(e.getKey()))
                .map(e -> e.getKey() + " in " + e.getValue())
                .toList();
        assertEquals(List.of(), lost, "gpusched.jar would keep only one copy of each: exclude it with a"
                + " <filter> or merge it with a <transformer> in gpusched-cli/pom.xml");
    }

    /** jna and jackson-core both have one; the jar must carry both texts, not drop one or both. */
    @Test
    void bundledLicensesAreAppendedNotDropped() throws Exception {
        Shade shade = Shade.read(MODULE.resolve("pom.xml"));
        assertTrue(shade.merged().stream().anyMatch(p -> p.matcher("META-INF/LICENSE").matches()),
                "no AppendingTransformer for META-INF/LICENSE in gpusched-cli/pom.xml");
    }

    /** @return the paths of the regular files in a classes directory or a jar, '/'-separated */
    private static List<String> files(Path input) throws IOException {
        if (Files.isDirectory(input)) {
            try (Stream<Path> walk = Files.walk(input)) {
                return walk.filter(Files::isRegularFile)
                        .map(p -> input.relativize(p).toString().replace(File.separatorChar, '/')).toList();
            }
        }
        try (JarFile jar = new JarFile(input.toFile())) {
            return jar.stream().filter(e -> !e.isDirectory()).map(JarEntry::getName).toList();
        }
    }

    /**
     * What the shade plugin's configuration does with a path two jars share.
     *
     * @param excluded the filters' exclude patterns (Ant style, as shade reads them)
     * @param merged patterns of paths a transformer merges
     */
    private record Shade(List<Pattern> excluded, List<Pattern> merged) {
        static Shade read(Path pom) throws Exception {
            var factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Element root = factory.newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
            List<Pattern> excluded = new ArrayList<>();
            List<Pattern> merged = new ArrayList<>();
            NodeList plugins = root.getElementsByTagName("plugin");
            for (int i = 0; i < plugins.getLength(); i++) {
                Element plugin = (Element) plugins.item(i);
                if (!"maven-shade-plugin".equals(text(plugin, "artifactId"))) {
                    continue;
                }
                for (Element exclude : elements(plugin, "exclude")) {
                    excluded.add(ant(exclude.getTextContent().strip()));
                }
                for (Element transformer : elements(plugin, "transformer")) {
                    String kind = transformer.getAttribute("implementation");
                    if (kind.endsWith(".ServicesResourceTransformer")) {
                        merged.add(ant("META-INF/services/*"));
                    } else if (kind.endsWith(".ManifestResourceTransformer")) {
                        merged.add(ant("META-INF/MANIFEST.MF"));
                    } else if (kind.endsWith(".AppendingTransformer")) {
                        merged.add(ant(text(transformer, "resource")));
                    }
                }
            }
            return new Shade(excluded, merged);
        }

        boolean handles(String path) {
            return Stream.concat(excluded.stream(), merged.stream()).anyMatch(p -> p.matcher(path).matches());
        }

        private static String text(Element parent, String tag) {
            for (Element e : elements(parent, tag)) {
                if (e.getParentNode() == parent) {
                    return e.getTextContent().strip();
                }
            }
            return "";
        }

        private static List<Element> elements(Element parent, String tag) {
            NodeList nodes = parent.getElementsByTagName(tag);
            List<Element> out = new ArrayList<>();
            for (int i = 0; i < nodes.getLength(); i++) {
                out.add((Element) nodes.item(i));
            }
            return out;
        }

        /** Ant's path patterns: ** spans directories, * and ? stay within one. */
        private static Pattern ant(String glob) {
            StringBuilder regex = new StringBuilder();
            for (int i = 0; i < glob.length(); i++) {
                char c = glob.charAt(i);
                if (glob.startsWith("**/", i)) {
                    regex.append("(?:.*/)?");
                    i += 2;
                } else if (glob.startsWith("**", i)) {
                    regex.append(".*");
                    i++;
                } else if (c == '*') {
                    regex.append("[^/]*");
                } else if (c == '?') {
                    regex.append("[^/]");
                } else {
                    regex.append(Pattern.quote(String.valueOf(c)));
                }
            }
            return Pattern.compile(regex.toString());
        }
    }
}
