"""Contract of the fake Jenkins, checked with a client we did not write.

python-jenkins (Debian's python3-jenkins, 1.4.0) drives the fake the way
scripts drive a real controller; every check states what Jenkins 2.479
answers, read from its source (core, workflow-job, cloudbees-folder and
Stapler's exporter), not from the fake.

The Go test (contract_test.go) starts the fake and runs this script with
JENKINS_URL, JENKINS_USER, JENKINS_TOKEN and JENKINS_VERSION set. It prints
one line per check, "PASS name" or "FAIL name: why", then
"SUMMARY <n> passed, <m> failed". Builds only start and finish when the
test says so: the script prints "CONTROL <command>" and waits for the Go
test to answer "ok" on stdin (commands: run-queue, log <job> <text>,
finish <job> <result>, stored-credential <folder> <id> <text>: the
credential as stored holds text, which Jenkins never answers).

Credential checks follow the credentials plugin's CredentialsStoreAction
(credentials 1371): what python-jenkins' create_credential,
credential_exists, get_credential_info, get_credential_config,
reconfig_credential, list_credentials and delete_credential get.
"""

import json
import os
import sys
import xml.etree.ElementTree as ET

import jenkins
import requests

URL = os.environ["JENKINS_URL"].rstrip("/")
USER = os.environ["JENKINS_USER"]
TOKEN = os.environ["JENKINS_TOKEN"]
VERSION = os.environ["JENKINS_VERSION"]

WORKFLOW_JOB = "org.jenkinsci.plugins.workflow.job.WorkflowJob"
WORKFLOW_RUN = "org.jenkinsci.plugins.workflow.job.WorkflowRun"
FOLDER = "com.cloudbees.hudson.plugins.folder.Folder"

PIPELINE_XML = """<?xml version='1.1' encoding='UTF-8'?>
<flow-definition plugin="workflow-job">
  <description>contract test</description>
  <keepDependencies>false</keepDependencies>
  <properties>
    <hudson.model.ParametersDefinitionProperty>
      <parameterDefinitions>
        <hudson.model.StringParameterDefinition>
          <name>TAG</name>
          <description>image tag</description>
          <defaultValue>latest</defaultValue>
          <trim>false</trim>
        </hudson.model.StringParameterDefinition>
      </parameterDefinitions>
    </hudson.model.ParametersDefinitionProperty>
  </properties>
  <definition class="org.jenkinsci.plugins.workflow.cps.CpsFlowDefinition" plugin="workflow-cps">
    <script>echo "building ${params.TAG}"</script>
    <sandbox>true</sandbox>
  </definition>
  <triggers/>
  <disabled>false</disabled>
</flow-definition>
"""

USERPASS = "com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl"
SECRET_TEXT = "org.jenkinsci.plugins.plaincredentials.impl.StringCredentialsImpl"
SSH_KEY = "com.cloudbees.jenkins.plugins.sshcredentials.impl.BasicSSHUserPrivateKey"
SECRET_FILE = "org.jenkinsci.plugins.plaincredentials.impl.FileCredentialsImpl"

# Values that Jenkins keeps and never answers.
PASSWORD = "contract-password-never-answered"
NEW_PASSWORD = "rotated-password-never-answered"


def userpass_xml(cid, password):
    return """<?xml version='1.1' encoding='UTF-8'?>
<%s>
  <scope>GLOBAL</scope>
  <id>%s</id>
  <description>git over https</description>
  <username>ci-bot</username>
  <usernameSecret>false</usernameSecret>
  <password>%s</password>
</%s>""" % (USERPASS, cid, password, USERPASS)


OTHER_CREDENTIALS = {
    "shop-token": (SECRET_TEXT, "<secret>token-never-answered</secret>", "Secret text", "token-never-answered"),
    "shop-ssh": (SSH_KEY, """<username>git</username>
  <usernameSecret>false</usernameSecret>
  <privateKeySource class="com.cloudbees.jenkins.plugins.sshcredentials.impl.BasicSSHUserPrivateKey$DirectEntryPrivateKeySource">
    <privateKey>-----BEGIN OPENSSH PRIVATE KEY-----key-never-answered</privateKey>
  </privateKeySource>
  <passphrase>phrase-never-answered</passphrase>""", "SSH Username with private key", "key-never-answered"),
    "shop-kubeconfig": (SECRET_FILE, """<fileName>kubeconfig</fileName>
  <secretBytes>ZmlsZS1uZXZlci1hbnN3ZXJlZA==</secretBytes>""", "Secret file", "ZmlsZS1uZXZlci1hbnN3ZXJlZA=="),
}

passed = 0
failed = 0


def report(line):
    print(line, flush=True)


def check(name, fn):
    """Runs one check; returns what fn returns, or None when it failed."""
    global passed, failed
    try:
        result = fn()
    except Exception as e:  # any failure names the check and goes on
        failed += 1
        why = "%s: %s" % (type(e).__name__, e) if not isinstance(e, AssertionError) else str(e)
        report("FAIL %s: %s" % (name, " | ".join(why.splitlines())))
        return None
    passed += 1
    report("PASS %s" % name)
    return result


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def equal(what, got, want):
    expect(got == want, "%s: got %r, want %r" % (what, got, want))


def raises(fn, exc, contains=None, status=None):
    """Calls fn and returns the exception of type exc it must raise."""
    try:
        fn()
    except exc as e:
        if contains is not None:
            expect(contains in str(e), "%s %r does not mention %r" % (type(e).__name__, str(e), contains))
        if status is not None:
            got = getattr(getattr(e, "response", None), "status_code", None)
            equal("HTTP status", got, status)
        return e
    except Exception as e:
        raise AssertionError("want %s, got %s: %s" % (exc.__name__, type(e).__name__, e))
    raise AssertionError("want %s, got no error" % exc.__name__)


def control(command):
    """Asks the Go test to act on the fake (start or finish builds)."""
    report("CONTROL " + command)
    answer = sys.stdin.readline().strip()
    if answer != "ok":
        raise SystemExit("control %r: %r" % (command, answer))


def job_url(path):
    return URL + "".join("/job/" + p for p in path.split("/")) + "/"


def keys(d):
    return sorted(d) if isinstance(d, dict) else d


def action(actions, cls):
    found = [a for a in actions if a.get("_class") == cls]
    expect(len(found) == 1, "want one %s in actions, got %r" % (cls, actions))
    return found[0]


def params_of(actions):
    p = action(actions, "hudson.model.ParametersAction")["parameters"]
    return {v["name"]: (v["_class"], v["value"]) for v in p}


def cause_of(actions):
    causes = action(actions, "hudson.model.CauseAction")["causes"]
    equal("causes", causes, [{
        "_class": "hudson.model.Cause$UserIdCause",
        "shortDescription": "Started by user " + USER,
        "userId": USER,
        "userName": USER,
    }])


server = jenkins.Jenkins(URL, username=USER, password=TOKEN, timeout=10)


# --- The controller ---------------------------------------------------------

def version():
    # get_version sends credentials only once another call has settled them:
    # a secured Jenkins answers an anonymous GET / with 403.
    equal("get_version", server.get_version(), VERSION)


def whoami():
    me = server.get_whoami()
    equal("_class", me.get("_class"), "hudson.model.User")
    equal("id", me.get("id"), USER)
    equal("fullName", me.get("fullName"), USER)
    equal("absoluteUrl", me.get("absoluteUrl"), URL + "/user/" + USER)


def info():
    root = server.get_info()
    equal("_class", root.get("_class"), "hudson.model.Hudson")
    equal("useCrumbs", root.get("useCrumbs"), True)
    equal("useSecurity", root.get("useSecurity"), True)
    equal("url", root.get("url"), URL + "/")
    equal("jobs", root.get("jobs"), [])


def crumb():
    # python-jenkins fetched it before its first request; an API token needs
    # none, but the issuer answers (it cannot be disabled since 2.222).
    server.get_job_name("none")
    expect(isinstance(server.crumb, dict), "no crumb was issued: %r" % server.crumb)
    equal("crumbRequestField", server.crumb.get("crumbRequestField"), "Jenkins-Crumb")
    expect(server.crumb.get("crumb"), "empty crumb")


# --- Items from XML -----------------------------------------------------------

def create_folder():
    server.create_job("team", jenkins.EMPTY_FOLDER_XML)
    expect(server.is_folder("team"), "the <%s> root did not make a folder" % FOLDER)


def create_pipeline():
    server.create_job("team/alpha", PIPELINE_XML)
    expect(server.job_exists("team/alpha"), "job_exists is false after create_job")
    equal("_class", server.get_job_info("team/alpha")["_class"], WORKFLOW_JOB)


def create_freestyle():
    server.create_job("free", jenkins.EMPTY_CONFIG_XML)
    equal("_class", server.get_job_info("free")["_class"], "hudson.model.FreeStyleProject")


# Jenkins' messages quote names with \u2018 \u2019; Jetty writes header values
# as ISO-8859-1 and turns every character above U+00FF into a space.

def create_duplicate():
    r = requests.Request("POST", server._build_url("job/team/createItem?name=alpha"),
                         data=PIPELINE_XML.encode(), headers=jenkins.DEFAULT_HEADERS)
    e = raises(lambda: server.jenkins_open(r), requests.HTTPError, status=400)
    equal("X-Error", e.response.headers.get("X-Error"), "A job already exists with the name  alpha")


def create_in_missing_folder():
    raises(lambda: server.create_job("nope/alpha", PIPELINE_XML), jenkins.JenkinsException,
           contains="folder for the job does not exist")


def create_unsafe_name():
    r = requests.Request("POST", server._build_url("createItem?name=a%3Fb"),
                         data=PIPELINE_XML.encode(), headers=jenkins.DEFAULT_HEADERS)
    e = raises(lambda: server.jenkins_open(r), requests.HTTPError, status=400)
    equal("X-Error", e.response.headers.get("X-Error"), "?  is an unsafe character")


def job_exists():
    expect(server.job_exists("team/alpha"), "team/alpha must exist")
    expect(server.job_exists("team"), "the folder must exist")
    expect(not server.job_exists("team/missing"), "team/missing must not exist")
    equal("get_job_name", server.get_job_name("team/alpha"), "alpha")


def job_info():
    j = server.get_job_info("team/alpha")
    for field, want in [
        ("name", "alpha"), ("fullName", "team/alpha"), ("displayName", "alpha"),
        ("fullDisplayName", "team \u00bb alpha"), ("url", job_url("team/alpha")),
        ("description", "contract test"), ("buildable", True), ("color", "notbuilt"),
        ("inQueue", False), ("queueItem", None), ("nextBuildNumber", 1), ("builds", []),
        ("lastBuild", None), ("firstBuild", None), ("lastCompletedBuild", None),
        ("lastSuccessfulBuild", None), ("healthReport", []), ("disabled", False),
        ("concurrentBuild", True), ("keepDependencies", False),
    ]:
        expect(field in j, "get_job_info has no %r: %r" % (field, keys(j)))
        equal(field, j[field], want)
    expect("allBuilds" not in j, "allBuilds (visibility -2) must only come with ?tree=")
    props = [p for p in j["property"] if p["_class"] == "hudson.model.ParametersDefinitionProperty"]
    equal("parameter definitions", props and props[0]["parameterDefinitions"], [{
        "_class": "hudson.model.StringParameterDefinition",
        "defaultParameterValue": {"_class": "hudson.model.StringParameterValue", "name": "TAG", "value": "latest"},
        "description": "image tag",
        "name": "TAG",
        "type": "StringParameterDefinition",
    }])


def folder_info():
    f = server.get_job_info("team")
    equal("_class", f["_class"], FOLDER)
    equal("fullName", f["fullName"], "team")
    equal("url", f["url"], job_url("team"))
    # At depth 0 the children show only what is visible one level down.
    equal("jobs", f["jobs"], [{"_class": WORKFLOW_JOB, "name": "alpha", "url": job_url("team/alpha"), "color": "notbuilt"}])


def all_jobs():
    # get_all_jobs asks for ?tree=jobs[url,color,name,jobs[...]]: nested trees.
    got = {j["fullname"]: j for j in server.get_all_jobs()}
    equal("full names", sorted(got), ["free", "team", "team/alpha"])
    equal("folder entry", keys(got["team"]), ["_class", "fullname", "jobs", "name", "url"])
    equal("job entry", got["team/alpha"], {"_class": WORKFLOW_JOB, "name": "alpha", "url": job_url("team/alpha"),
                                           "color": "notbuilt", "fullname": "team/alpha"})
    equal("jobs_count", server.jobs_count(), 3)


def tree_query():
    # A property named without sub-fields gives its objects' _class only.
    r = requests.Request("GET", server._build_url("job/team/api/json?tree=name,jobs"))
    got = json.loads(server.jenkins_open(r))
    equal("tree=name,jobs", got, {"_class": FOLDER, "name": "team", "jobs": [{"_class": WORKFLOW_JOB}]})


def config_roundtrip():
    xml = server.get_job_config("team/alpha")
    root = ET.fromstring(xml)
    equal("root element", root.tag, "flow-definition")
    equal("description", root.findtext("description"), "contract test")
    changed = PIPELINE_XML.replace("contract test", "changed").replace("<defaultValue>latest<", "<defaultValue>stable<")
    server.reconfig_job("team/alpha", changed)
    root = ET.fromstring(server.get_job_config("team/alpha"))
    equal("description after reconfig_job", root.findtext("description"), "changed")
    j = server.get_job_info("team/alpha")
    equal("description in api/json", j["description"], "changed")
    defs = [p for p in j["property"] if p["_class"] == "hudson.model.ParametersDefinitionProperty"][0]["parameterDefinitions"]
    equal("default in api/json", defs[0]["defaultParameterValue"]["value"], "stable")
    server.reconfig_job("team/alpha", PIPELINE_XML)


def copy_job():
    # createItem?mode=copy answers 302 to the copy's configure page.
    server.copy_job("team/alpha", "team/beta")
    equal("copy's config", ET.fromstring(server.get_job_config("team/beta")).findtext("description"), "contract test")
    j = server.get_job_info("team/beta")
    equal("copy's class", j["_class"], WORKFLOW_JOB)
    equal("copy's nextBuildNumber", j["nextBuildNumber"], 1)
    server.delete_job("team/beta")


def reconfig_other_type():
    # updateByXml refuses another item type: IOException, so a 500.
    raises(lambda: server.reconfig_job("team/alpha", jenkins.EMPTY_FOLDER_XML), jenkins.JenkinsException,
           contains="[500]")
    equal("_class after refused reconfig", server.get_job_info("team/alpha")["_class"], WORKFLOW_JOB)


def folder_config():
    root = ET.fromstring(server.get_job_config("team"))
    equal("folder config root", root.tag, FOLDER)


# --- Builds -------------------------------------------------------------------

def build_with_parameters():
    n = server.build_job("team/alpha", {"TAG": "v1"})
    expect(isinstance(n, int) and n > 0, "build_job returned %r, want a queue item number" % n)
    return n


def queue_item_waiting(n):
    q = server.get_queue_item(n)
    expect(q["_class"] in ("hudson.model.Queue$WaitingItem", "hudson.model.Queue$BuildableItem"),
           "_class %r, want a waiting or buildable item" % q["_class"])
    expect("executable" not in q, "a waiting item has no 'executable' key (only LeftItem has one): %r" % keys(q))
    expect(isinstance(q.get("why"), str) and q["why"], "why: %r" % q.get("why"))
    equal("id", q["id"], n)
    equal("url", q["url"], "queue/item/%d/" % n)
    equal("params", q["params"], "\nTAG=v1")
    equal("task", q["task"], {"_class": WORKFLOW_JOB, "name": "alpha", "url": job_url("team/alpha"), "color": "notbuilt"})
    equal("parameters", params_of(q["actions"]), {"TAG": ("hudson.model.StringParameterValue", "v1")})
    cause_of(q["actions"])
    for field in ("blocked", "buildable", "stuck"):
        expect(field in q, "no %r in %r" % (field, keys(q)))
    expect(isinstance(q.get("inQueueSince"), int), "inQueueSince: %r" % q.get("inQueueSince"))


def job_in_queue(n):
    j = server.get_job_info("team/alpha")
    equal("inQueue", j["inQueue"], True)
    expect(j["queueItem"] and j["queueItem"]["id"] == n, "queueItem: %r" % j["queueItem"])


def queue_info(n):
    items = [i for i in server.get_queue_info() if i["task"]["name"] == "alpha"]
    equal("queued items for alpha", [i["id"] for i in items], [n])


def same_parameters_merged(n):
    # Jenkins keeps one item per job and parameters: it answers 303 to the
    # queued item, whose page has no Location, so python-jenkins gives up.
    raises(lambda: server.build_job("team/alpha", {"TAG": "v1"}), jenkins.EmptyResponseException,
           contains="Location")
    queue_info(n)


def other_parameters_queued(n):
    m = server.build_job("team/alpha", {"TAG": "v2"})
    expect(m != n, "other parameters must queue a new item, got the same %d" % n)
    return m


def get_tree(path, tree):
    """GET path/api/json?tree=... as the provider's client asks it."""
    r = requests.Request("GET", server._build_url(path + "api/json?tree=" + tree))
    return json.loads(server.jenkins_open(r))


def queue_tree():
    # What the provider reads to find a build whose answer was lost: the
    # queue's items with their task URL and parameters. Every object carries
    # _class; an action without parameters (CauseAction) is only its class.
    got = get_tree("queue/", "items[task[url],actions[parameters[name,value]]]")
    equal("_class", got["_class"], "hudson.model.Queue")
    items = [i for i in got["items"] if i["task"]["url"] == job_url("team/alpha")]
    equal("items for alpha", len(items), 2)
    for i in items:
        equal("item keys", sorted(i), ["_class", "actions", "task"])
        equal("item _class", i["_class"], "hudson.model.Queue$WaitingItem")
        equal("task", i["task"], {"_class": WORKFLOW_JOB, "url": job_url("team/alpha")})
    params = sorted(a["parameters"][0]["value"] for i in items for a in i["actions"] if "parameters" in a)
    equal("parameters", params, ["v1", "v2"])
    cause = [a for i in items for a in i["actions"] if a.get("_class") == "hudson.model.CauseAction"]
    expect(cause and all(a == {"_class": "hudson.model.CauseAction"} for a in cause), "a CauseAction with no field asked is its class only: %r" % cause)


def builds_tree_range():
    # The job's builds, newest first, limited by the {0,10} range.
    got = get_tree(job_url("team/alpha")[len(URL) + 1:], "builds[number,actions[parameters[name,value]]]{0,1}")
    equal("keys", sorted(got), ["_class", "builds"])
    equal("builds in range {0,1}", [b["number"] for b in got["builds"]], [2])
    b = got["builds"][0]
    equal("build _class", b["_class"], WORKFLOW_RUN)
    p = [a["parameters"] for a in b["actions"] if "parameters" in a]
    equal("parameters", p, [[{"_class": "hudson.model.StringParameterValue", "name": "TAG", "value": "v2"}]])


def build_without_form():
    # POST build on a parameterized job expects a form (Stapler: 400).
    raises(lambda: server.build_job("team/alpha"), requests.HTTPError, status=400)


def queue_item_left(n):
    q = server.get_queue_item(n)
    equal("_class", q["_class"], "hudson.model.Queue$LeftItem")
    equal("cancelled", q.get("cancelled"), False)
    equal("executable", q.get("executable"), {"_class": WORKFLOW_RUN, "number": 1, "url": job_url("team/alpha") + "1/"})
    return q["executable"]["number"]


def build_running(n):
    b = server.get_build_info("team/alpha", 1)
    for field, want in [
        ("_class", WORKFLOW_RUN), ("number", 1), ("id", "1"), ("url", job_url("team/alpha") + "1/"),
        ("building", True), ("inProgress", True), ("result", None), ("displayName", "#1"),
        ("fullDisplayName", "team \u00bb alpha #1"), ("queueId", n), ("keepLog", False),
        ("description", None), ("duration", 0), ("previousBuild", None),
    ]:
        expect(field in b, "get_build_info has no %r: %r" % (field, keys(b)))
        equal(field, b[field], want)
    expect(isinstance(b.get("timestamp"), int) and b["timestamp"] > 0, "timestamp: %r" % b.get("timestamp"))
    equal("parameters", params_of(b["actions"]), {"TAG": ("hudson.model.StringParameterValue", "v1")})
    cause_of(b["actions"])
    equal("nextBuild", b.get("nextBuild"), {"_class": WORKFLOW_RUN, "number": 2, "url": job_url("team/alpha") + "2/"})


def job_building():
    j = server.get_job_info("team/alpha")
    equal("color", j["color"], "notbuilt_anime")
    equal("lastBuild", j["lastBuild"], {"_class": WORKFLOW_RUN, "number": 2, "url": job_url("team/alpha") + "2/"})
    equal("builds", [b["number"] for b in j["builds"]], [2, 1])
    equal("lastCompletedBuild", j["lastCompletedBuild"], None)
    equal("inQueue", j["inQueue"], False)
    equal("nextBuildNumber", j["nextBuildNumber"], 3)


def build_finished():
    b = server.get_build_info("team/alpha", 1)
    equal("building", b["building"], False)
    equal("inProgress", b["inProgress"], False)
    equal("result", b["result"], "SUCCESS")
    expect(isinstance(b["duration"], int) and b["duration"] >= 0, "duration: %r" % b["duration"])
    equal("executor", b.get("executor"), None)


def console():
    text = server.get_build_console_output("team/alpha", 1)
    expect(text.startswith("Started by user %s\n" % USER), "console starts %r" % text[:60])
    expect("hello from the build\n" in text, "console lacks the build's output: %r" % text)
    expect(text.endswith("Finished: SUCCESS\n"), "console ends %r" % text[-40:])


def job_built():
    j = server.get_job_info("team/alpha")
    equal("color", j["color"], "red")
    equal("lastSuccessfulBuild", j["lastSuccessfulBuild"], {"_class": WORKFLOW_RUN, "number": 2, "url": job_url("team/alpha") + "2/"})
    equal("lastFailedBuild", j["lastFailedBuild"]["number"], 3)
    equal("lastCompletedBuild", j["lastCompletedBuild"]["number"], 3)
    equal("firstBuild", j["firstBuild"]["number"], 1)
    equal("builds", [b["number"] for b in j["builds"]], [3, 2, 1])
    equal("healthReport", j["healthReport"], [{
        "description": "Build stability: 1 out of the last 3 builds failed.",
        "iconClassName": "icon-health-60to79", "iconUrl": "health-60to79.png", "score": 66,
    }])


def missing_build():
    raises(lambda: server.get_build_info("team/alpha", 99), jenkins.JenkinsException, contains="does not exist")
    raises(lambda: server.get_build_console_output("team/alpha", 99), jenkins.JenkinsException, contains="does not exist")


def disable():
    server.disable_job("team/alpha")
    j = server.get_job_info("team/alpha")
    equal("buildable", j["buildable"], False)
    equal("color", j["color"], "disabled")
    equal("disabled", j["disabled"], True)
    root = ET.fromstring(server.get_job_config("team/alpha"))
    equal("<disabled> in config.xml", root.findtext("disabled"), "true")


def build_disabled():
    raises(lambda: server.build_job("team/alpha", {"TAG": "x"}), requests.HTTPError, status=409)


def enable():
    server.enable_job("team/alpha")
    j = server.get_job_info("team/alpha")
    equal("buildable", j["buildable"], True)
    equal("color", j["color"], "red")
    equal("disabled", j["disabled"], False)


def freestyle_build():
    raises(lambda: server.build_job("free", {"X": "1"}), jenkins.JenkinsException, contains="[500]")
    n = server.build_job("free")
    equal("task", server.get_queue_item(n)["task"]["name"], "free")
    equal("params of an unparameterized build", server.get_queue_item(n)["params"], "")


# --- Following one build: cancel, describe, stop -------------------------------

def deploy_queued():
    # Job deploy with two waiting items: one to cancel, one to start.
    server.create_job("deploy", PIPELINE_XML)
    return server.build_job("deploy", {"TAG": "a"}), server.build_job("deploy", {"TAG": "b"})


def cancel_queue(q, other):
    # Queue.doCancelItem answers 204 without a body or Content-Length (Jetty
    # writes none for a 204), which python-jenkins takes for an empty
    # response although the item is cancelled.
    raises(lambda: server.cancel_queue(q), jenkins.EmptyResponseException, contains="empty response")
    item = server.get_queue_item(q)
    equal("_class", item["_class"], "hudson.model.Queue$LeftItem")
    equal("cancelled", item.get("cancelled"), True)
    equal("executable", item.get("executable"), None)
    equal("why", item.get("why"), None)
    equal("queued items for deploy", [i["id"] for i in server.get_queue_info() if i["task"]["name"] == "deploy"], [other])


def cancel_queue_unknown():
    # 404 for an id the queue does not hold, which cancel_queue ignores.
    server.cancel_queue(99999)


def cancel_queue_left(q):
    # A cancelled item is a LeftItem, whose cancel fails: 500.
    raises(lambda: server.cancel_queue(q), jenkins.JenkinsException, contains="[500]")
    equal("cancelled", server.get_queue_item(q).get("cancelled"), True)


def queue_item_started(q):
    item = server.get_queue_item(q)
    equal("_class", item["_class"], "hudson.model.Queue$LeftItem")
    equal("cancelled", item.get("cancelled"), False)
    equal("executable", item.get("executable"), {"_class": WORKFLOW_RUN, "number": 1, "url": job_url("deploy") + "1/"})
    equal("why", item.get("why"), None)
    # Too late to cancel: LeftItem.cancel fails, 500, and the build runs on.
    raises(lambda: server.cancel_queue(q), jenkins.JenkinsException, contains="[500]")
    equal("building after cancel_queue", server.get_build_info("deploy", 1)["building"], True)


def build_description(q):
    b = server.get_build_info("deploy", 1)
    equal("description before", b["description"], None)
    equal("queueId", b["queueId"], q)
    # Run.doSubmitDescription: the form's description, 302 to the build.
    r = requests.Request("POST", job_url("deploy") + "1/submitDescription", data={"description": "deploying a"})
    resp = server.jenkins_request(r)
    equal("redirected to", [(h.status_code, h.headers.get("Location")) for h in resp.history], [(302, job_url("deploy") + "1/")])
    equal("description", server.get_build_info("deploy", 1)["description"], "deploying a")
    r = requests.Request("GET", job_url("deploy") + "1/api/json?tree=description,queueId")
    equal("tree=description,queueId", json.loads(server.jenkins_open(r)),
          {"_class": WORKFLOW_RUN, "description": "deploying a", "queueId": q})


def stop_requires_post():
    # doStop is @RequirePOST: a GET is refused and stops nothing.
    r = requests.Request("GET", job_url("deploy") + "1/stop")
    raises(lambda: server.jenkins_open(r), requests.HTTPError, status=405)
    equal("building after GET stop", server.get_build_info("deploy", 1)["building"], True)


def stop_build():
    server.stop_build("deploy", 1)
    b = server.get_build_info("deploy", 1)
    equal("building", b["building"], False)
    equal("result", b["result"], "ABORTED")
    equal("description kept", b["description"], "deploying a")
    text = server.get_build_console_output("deploy", 1)
    expect(text.endswith("Aborted by %s\nFinished: ABORTED\n" % USER), "console ends %r" % text[-60:])
    equal("color", server.get_job_info("deploy")["color"], "aborted")


def stop_finished_build():
    # A finished build has no executor: stop does nothing, and answers 302.
    server.stop_build("deploy", 1)
    equal("result of an aborted build stopped again", server.get_build_info("deploy", 1)["result"], "ABORTED")
    server.stop_build("team/alpha", 2)
    equal("result of a successful build stopped", server.get_build_info("team/alpha", 2)["result"], "SUCCESS")
    raises(lambda: server.stop_build("deploy", 99), jenkins.NotFoundException)
    server.delete_job("deploy")


# --- Deleting, and what is not there -------------------------------------------

def delete():
    server.delete_job("team/alpha")
    expect(not server.job_exists("team/alpha"), "team/alpha still exists")
    equal("folder jobs", server.get_job_info("team")["jobs"], [])


def delete_folder():
    server.delete_job("team")
    expect(not server.job_exists("team"), "team still exists")
    server.delete_job("free")


# --- Credentials ----------------------------------------------------------------

def credential_create():
    server.create_credential("team", userpass_xml("shop-git", PASSWORD))
    expect(server.credential_exists("shop-git", "team"), "credential_exists is false after create_credential")
    expect(not server.credential_exists("nope", "team"), "a missing credential exists")
    control("stored-credential team shop-git " + PASSWORD)


def credential_info():
    info = server.get_credential_info("shop-git", "team")
    for field, want in [
        ("_class", "com.cloudbees.plugins.credentials.CredentialsStoreAction$CredentialsWrapper"),
        ("id", "shop-git"),
        ("description", "git over https"),
        ("typeName", "Username with password"),
        ("displayName", "ci-bot/****** (git over https)"),
    ]:
        equal(field, info.get(field), want)
    expect(PASSWORD not in json.dumps(info), "api/json answered the password")


def credential_config_redacted():
    config = server.get_credential_config("shop-git", "team")
    expect(PASSWORD not in config, "config.xml answered the password")
    root = ET.fromstring(config)
    equal("root", root.tag, USERPASS)
    equal("username", root.findtext("username"), "ci-bot")
    expect(root.find("password/secret-redacted") is not None, "the password is not <secret-redacted/>")


def credential_duplicate():
    raises(lambda: server.create_credential("team", userpass_xml("shop-git", "x")), jenkins.JenkinsException,
           contains="already exists")
    # Jenkins itself answers 409 (python-jenkins checks first).
    url = server._build_url("job/team/credentials/store/folder/domain/_/createCredentials")
    r = requests.Request("POST", url, data=userpass_xml("shop-git", "x").encode(), headers=jenkins.DEFAULT_HEADERS)
    raises(lambda: server.jenkins_open(r), requests.HTTPError, status=409)
    control("stored-credential team shop-git " + PASSWORD)


def credential_reconfig():
    # python-jenkins 1.4 sends reconfig_credential's POST without the XML:
    # Jenkins cannot parse an empty credential (500) and changes nothing.
    raises(lambda: server.reconfig_credential("team", userpass_xml("shop-git", NEW_PASSWORD)), jenkins.JenkinsException,
           contains="[500]")
    control("stored-credential team shop-git " + PASSWORD)
    # With the body (what the provider sends), it is replaced.
    url = server._build_url("job/team/credentials/store/folder/domain/_/credential/shop-git/config.xml")
    server.jenkins_open(requests.Request("POST", url, data=userpass_xml("shop-git", NEW_PASSWORD).encode(),
                                         headers=jenkins.DEFAULT_HEADERS))
    control("stored-credential team shop-git " + NEW_PASSWORD)
    other = requests.Request("POST", url, data=userpass_xml("other-id", "x").encode(), headers=jenkins.DEFAULT_HEADERS)
    raises(lambda: server.jenkins_open(other), jenkins.JenkinsException, contains="[500]")


def credential_types():
    for cid, (cls, body, type_name, secret) in OTHER_CREDENTIALS.items():
        xml = "<%s>\n  <scope>GLOBAL</scope>\n  <id>%s</id>\n  <description/>\n  %s\n</%s>" % (cls, cid, body, cls)
        server.create_credential("team", xml)
        equal(cid + " typeName", server.get_credential_info(cid, "team")["typeName"], type_name)
        config = server.get_credential_config(cid, "team")
        expect(secret not in config, "config.xml of %s answered its secret" % cid)
        expect("secret-redacted" in config, "config.xml of %s is not redacted" % cid)
        control("stored-credential team %s %s" % (cid, secret))
    ids = sorted(c["id"] for c in server.list_credentials("team"))
    equal("list_credentials", ids, sorted(["shop-git"] + list(OTHER_CREDENTIALS)))


def credential_unknown_class():
    url = server._build_url("job/team/credentials/store/folder/domain/_/createCredentials")
    r = requests.Request("POST", url, data=b"<no.such.Credentials><id>x</id></no.such.Credentials>",
                         headers=jenkins.DEFAULT_HEADERS)
    raises(lambda: server.jenkins_open(r), jenkins.JenkinsException, contains="[500]")
    expect(not server.credential_exists("x", "team"), "an unknown class was stored")


def credential_scoping():
    # Only folders have a store, only the global domain "_" exists.
    expect(not server.credential_exists("shop-git", "nope"), "a credential of a missing folder exists")
    raises(lambda: server.get_credential_info("shop-git", "nope"), jenkins.JenkinsException)
    for path in ["job/team/job/alpha/credentials/store/folder/domain/_/api/json",
                 "job/team/credentials/store/folder/domain/other/api/json",
                 "job/team/credentials/store/folder/domain/_/credential/nope/api/json"]:
        raises(lambda: server.jenkins_open(requests.Request("GET", server._build_url(path))),
               jenkins.NotFoundException)
    expect(not server.credential_exists("shop-git", "free"), "a job that is no folder has a store")


def credential_delete():
    server.delete_credential("shop-git", "team")
    expect(not server.credential_exists("shop-git", "team"), "credential_exists after delete_credential")
    raises(lambda: server.delete_credential("shop-git", "team"), jenkins.NotFoundException)


def missing_job():
    raises(lambda: server.get_job_info("nope"), jenkins.JenkinsException, contains="job[nope] does not exist")
    raises(lambda: server.get_job_config("nope"), jenkins.NotFoundException)
    raises(lambda: server.reconfig_job("nope", PIPELINE_XML), jenkins.NotFoundException)
    raises(lambda: server.build_job("nope"), jenkins.NotFoundException)
    raises(lambda: server.enable_job("nope"), jenkins.NotFoundException)
    raises(lambda: server.disable_job("nope"), jenkins.NotFoundException)
    raises(lambda: server.delete_job("nope"), jenkins.NotFoundException)
    raises(lambda: server.get_queue_item(99999), jenkins.JenkinsException, contains="does not exist")


def bad_credentials():
    bad = jenkins.Jenkins(URL, username=USER, password="wrong-" + TOKEN, timeout=10)
    raises(bad.get_whoami, jenkins.JenkinsException, contains="[401]")
    raises(bad.get_version, jenkins.BadHTTPException)
    raises(lambda: bad.create_job("x", PIPELINE_XML), jenkins.JenkinsException, contains="[401]")
    expect(not server.job_exists("x"), "a rejected create_job created x")


def anonymous():
    raises(jenkins.Jenkins(URL, timeout=10).get_whoami, jenkins.JenkinsException, contains="[403]")


def main():
    check("whoami", whoami)
    check("version", version)
    check("info", info)
    check("crumb", crumb)
    check("create-folder", create_folder)
    check("create-pipeline-in-folder", create_pipeline)
    check("create-freestyle", create_freestyle)
    check("create-duplicate", create_duplicate)
    check("create-in-missing-folder", create_in_missing_folder)
    check("create-unsafe-name", create_unsafe_name)
    check("job-exists", job_exists)
    check("job-info", job_info)
    check("folder-info", folder_info)
    check("all-jobs", all_jobs)
    check("tree-query", tree_query)
    check("config-read-write", config_roundtrip)
    check("copy-job", copy_job)
    check("reconfig-other-type", reconfig_other_type)
    check("folder-config", folder_config)
    check("credential-create", credential_create)
    check("credential-info", credential_info)
    check("credential-config-redacted", credential_config_redacted)
    check("credential-duplicate", credential_duplicate)
    check("credential-reconfig", credential_reconfig)
    check("credential-types", credential_types)
    check("credential-unknown-class", credential_unknown_class)
    check("credential-scoping", credential_scoping)
    check("credential-delete", credential_delete)
    n = check("build-with-parameters", build_with_parameters)
    if n:
        check("queue-item-waiting", lambda: queue_item_waiting(n))
        check("job-in-queue", lambda: job_in_queue(n))
        check("queue-info", lambda: queue_info(n))
        check("same-parameters-merged", lambda: same_parameters_merged(n))
        check("other-parameters-queued", lambda: other_parameters_queued(n))
        check("queue-tree", queue_tree)
    check("build-without-form", build_without_form)
    control("run-queue")  # builds #1 (TAG=v1) and #2 (TAG=v2) start
    check("builds-tree-range", builds_tree_range)
    if n:
        check("queue-item-executable", lambda: queue_item_left(n))
        check("build-info-running", lambda: build_running(n))
    check("job-info-building", job_building)
    control("log team/alpha hello from the build")
    control("finish team/alpha SUCCESS")
    check("build-info-finished", build_finished)
    check("console-output", console)
    check("build-another", lambda: server.build_job("team/alpha", {"TAG": "v3"}))
    control("run-queue")  # build #3
    control("finish team/alpha FAILURE")
    check("job-info-after-builds", job_built)
    check("missing-build", missing_build)
    queued = check("deploy-queued", deploy_queued)
    if queued:
        started, cancelled = queued
        check("cancel-queue", lambda: cancel_queue(cancelled, started))
        check("cancel-queue-unknown", cancel_queue_unknown)
        check("cancel-queue-left", lambda: cancel_queue_left(cancelled))
        control("run-queue")  # deploy #1 (TAG=a) starts
        check("queue-item-started", lambda: queue_item_started(started))
        check("build-description", lambda: build_description(started))
        check("stop-requires-post", stop_requires_post)
        check("stop-build", stop_build)
        check("stop-finished-build", stop_finished_build)
    check("disable-job", disable)
    check("build-disabled-job", build_disabled)
    check("enable-job", enable)
    check("freestyle-build", freestyle_build)
    check("delete-job", delete)
    check("delete-folder", delete_folder)
    check("missing-job", missing_job)
    check("bad-credentials", bad_credentials)
    check("anonymous", anonymous)
    report("SUMMARY %d passed, %d failed" % (passed, failed))


if __name__ == "__main__":
    main()
