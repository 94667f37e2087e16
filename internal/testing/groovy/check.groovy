// Parses every *.script in the directory given up to the CONVERSION phase
// and evaluates every literal of literals.txt (name TAB literal), printing
// one line each: "SCRIPT name" plus the error, "LITERAL name =hex" or the
// error.
import org.codehaus.groovy.control.CompilationUnit
import org.codehaus.groovy.control.Phases

def dir = new File(args[0])
dir.listFiles().findAll { it.name.endsWith('.script') }.sort { it.name }.each { f ->
  def cu = new CompilationUnit()
  cu.addSource(f.name, f.getText('UTF-8'))
  try {
    cu.compile(Phases.CONVERSION)
    println "SCRIPT ${f.name} "
  } catch (Throwable e) {
    println "SCRIPT ${f.name} " + e.message.readLines().join(' | ')
  }
}
new File(dir, 'literals.txt').getText('UTF-8').readLines().each { line ->
  if (!line) return
  def (name, literal) = line.split('\t', 2)
  try {
    def v = new GroovyShell().evaluate('return ' + literal)
    println "LITERAL ${name} " + (v instanceof String ? '=' + v.getBytes('UTF-8').encodeHex() : 'not a String: ' + v?.getClass())
  } catch (Throwable e) {
    println "LITERAL ${name} " + e.message.readLines().join(' | ')
  }
}
