// Build (or confirm) the e2e images from the command line, e.g. for CI before the suites run:
//   node containers/build-images.ts [--agents pi,claude|all] [--extras ssh|all]
// `--agents all --extras all` is the one image every e2e suite runs in (recipe.ts, E2E_IMAGE).
// Needs DOCKER_HOST at the rootless Podman socket (eval "$(bash containers/podman.sh env)"). Node runs this file with
// type stripping (Node >= 22.18), so it uses only erasable TypeScript.
import { parseArgs } from "node:util";
import { buildImage } from "./images.ts";
import { E2E_IMAGE, isAgentId, isExtraId } from "./recipe.ts";

const { values } = parseArgs({ options: { agents: { type: "string", default: "" }, extras: { type: "string", default: "" } } });
const agents = values.agents === "all" ? [...E2E_IMAGE.agents] : (values.agents ?? "").split(",").filter(Boolean);
const extras = values.extras === "all" ? [...E2E_IMAGE.extras] : (values.extras ?? "").split(",").filter(Boolean);
const unknown = [...agents.filter((id) => !isAgentId(id)), ...extras.filter((id) => !isExtraId(id))];
if (unknown.length > 0) {
  console.error(`build-images: unknown agent(s) or extra(s) ${unknown.join(", ")}`);
  process.exit(2);
}

const started = performance.now();
const result = await buildImage({
  agents: agents.filter(isAgentId),
  extras: extras.filter(isExtraId),
  log: (line) => console.error(`build-images: ${line}`),
});
if (!result.ok) {
  console.error(`build-images: ${result.reason}: ${result.detail}`);
  process.exit(1);
}
for (const layer of result.layers) console.error(`build-images: ${layer.built ? "built " : "reused"} ${layer.ref} (${layer.seconds} s)`);
console.error(`build-images: ${result.image} ready in ${Math.round((performance.now() - started) / 1000)} s`);
console.log(result.image);
