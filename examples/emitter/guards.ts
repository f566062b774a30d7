/**
 * An example emitter kept outside the generator: `guards.isX(value)`, a type
 * guard per type, built on the strict validator. Run it with
 * `npm run generate -- --emitter examples/emitter/guards.ts --out DIR`.
 */
import { block, code, defineEmitter, doc, GeneratedFile, name } from "acp-codegen/api";

export default defineEmitter({
  apiVersion: 1,
  name: "guards",
  requires: ["types", "validate"],
  files: [
    {
      path: "guards.ts",
      exports: { namespace: "guards" },
      emit(model) {
        const f = new GeneratedFile();
        const types = f.importAll("./types.js", "T", { type: true });
        const validate = f.importAll("./validate.js", "validate");
        for (const def of model.defs) {
          const type = name(def.name);
          const comment = doc([`True when \`value\` is a valid \`${def.name}\` (\`validate.${def.name}\`).`]);
          const head = code`export function ${name(`is${def.name}`)}(value: unknown): value is ${types}.${type}`;
          f.print(code`${comment}${block(head, [code`return ${validate}.${type}(value).ok;`])}`);
        }
        return f.toString();
      },
    },
  ],
  readme: ({ packageName }) => `## Type guards

\`${packageName}/<surface>/guards\` exports \`isX(value): value is X\` for every type \`X\`, true when \`validate.X\` accepts the value.
`,
});
