/**
 * Finds the first object key that appears twice in one object of a JSON text
 * that JSON.parse already accepted. JSON.parse silently keeps the last value,
 * so `{"name":"a","name":"b"}` would otherwise mean something other than it says.
 * Iterative, so deep nesting cannot overflow the stack.
 */
export function findDuplicateKey(text: string): string | undefined {
  const objects: (Set<string> | null)[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char === "{") objects.push(new Set());
    else if (char === "[") objects.push(null);
    else if (char === "}" || char === "]") objects.pop();
    else if (char === '"') {
      const end = endOfString(text, index);
      const keys = objects.at(-1);
      if (keys && nextSignificant(text, end + 1) === ":") {
        const key = JSON.parse(text.slice(index, end + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
      index = end;
    }
    index += 1;
  }
  return undefined;
}

function endOfString(text: string, opening: number): number {
  let index = opening + 1;
  while (text[index] !== '"') index += text[index] === "\\" ? 2 : 1;
  return index;
}

function nextSignificant(text: string, from: number): string | undefined {
  let index = from;
  while (index < text.length && " \t\n\r".includes(text[index] ?? "")) index += 1;
  return text[index];
}
