/**
 * The generated WebShop catalogue: products with a category, a product type, attributes, option
 * groups (size, color, flavor, ...) and a price, deterministic from a fixed seed and the size.
 *
 * Shape follows princeton-nlp/WebShop's product records (web_agent_site/engine/engine.py
 * `load_products`): `Title`, `BulletPoints` (our `features`), `Description`, `options`
 * (group → values, lower case), `Attributes`, a `query` (the search the product was scraped
 * for; ours is the product type) and a `product_category` breadcrumb (ours: category › type).
 * Prices are whole dollars (a price is two word tokens instead of five for word-level
 * tokenizers); ids look like lower-case ASINs ("b0k3x9").
 */
import { derive, type Rng } from "../../core/host.ts"

export interface OptionGroup {
  readonly name: string
  readonly values: ReadonlyArray<string>
}

interface CategoryDef {
  readonly name: string
  readonly types: ReadonlyArray<string>
  readonly attributes: ReadonlyArray<string>
  readonly groups: ReadonlyArray<OptionGroup>
  /** Price range in whole dollars. */
  readonly price: readonly [number, number]
}

// Five categories as WebShop's (beauty, food, fashion, furniture, electronics). Within one
// category, option values of different groups never coincide (a click names one value).
export const CATEGORIES: ReadonlyArray<CategoryDef> = [
  {
    name: "fashion",
    types: ["t-shirt", "hoodie", "jeans", "sneakers", "dress", "rain jacket"],
    attributes: ["cotton", "machine wash", "slim fit", "long sleeve", "relaxed fit", "button closure", "elastic waist", "quick dry", "polyester blend"],
    groups: [
      { name: "size", values: ["xs", "s", "m", "l", "xl", "xx-large"] },
      { name: "color", values: ["black", "white", "red", "blue", "navy", "gray", "green", "pink"] }
    ],
    price: [8, 60]
  },
  {
    name: "beauty",
    types: ["shampoo", "face cream", "lipstick", "body lotion", "hair oil", "nail polish"],
    attributes: ["paraben free", "cruelty free", "natural ingredients", "long lasting", "sensitive skin", "fragrance free", "vegan", "dry skin"],
    groups: [
      { name: "size", values: ["1 oz", "2 oz", "4 oz", "8 oz", "16 oz"] },
      { name: "scent", values: ["lavender", "rose", "coconut", "citrus", "unscented", "mint"] }
    ],
    price: [5, 45]
  },
  {
    name: "grocery",
    types: ["coffee beans", "green tea", "protein bars", "dark chocolate", "almonds", "pasta sauce"],
    attributes: ["gluten free", "non gmo", "sugar free", "low carb", "keto friendly", "usda organic", "high protein", "caffeine free"],
    groups: [
      { name: "flavor", values: ["original", "chocolate", "vanilla", "caramel", "honey", "strawberry", "sea salt"] },
      { name: "size", values: ["pack of 2", "pack of 4", "pack of 6", "pack of 12"] }
    ],
    price: [4, 40]
  },
  {
    name: "furniture",
    types: ["office chair", "bookshelf", "coffee table", "tv stand", "bed frame", "writing desk"],
    attributes: ["easy assembly", "solid wood", "metal frame", "storage space", "living room", "height adjustable", "space saving", "mid century"],
    groups: [{ name: "color", values: ["black", "white", "brown", "oak", "gray", "walnut"] }],
    price: [40, 400]
  },
  {
    name: "electronics",
    types: ["headphones", "phone case", "usb cable", "power bank", "bluetooth speaker", "wall charger"],
    attributes: ["fast charging", "wireless bluetooth", "noise cancelling", "water resistant", "high speed", "long battery life", "hands free", "shockproof"],
    groups: [{ name: "color", values: ["black", "white", "blue", "red", "silver"] }],
    price: [8, 150]
  }
]

export const BRANDS = ["acme", "luma", "terra", "zenith", "nordic", "vela", "orbit", "kiva", "sola", "bramble", "pico", "rowan"] as const

export interface Product {
  /** Index in the catalogue. */
  readonly index: number
  /** Lower-case ASIN-like id, the clickable on the results page. */
  readonly id: string
  readonly category: string
  /** Product type, e.g. "t-shirt"; also the product's `query`. */
  readonly type: string
  readonly brand: string
  readonly title: string
  readonly attributes: ReadonlyArray<string>
  readonly features: ReadonlyArray<string>
  readonly description: string
  readonly groups: ReadonlyArray<OptionGroup>
  /** Whole dollars. */
  readonly price: number
  /** "4.3" */
  readonly rating: string
  /** Lower-case title + features + description (for the reward's substring fallback). */
  readonly text: string
}

export interface Catalogue {
  readonly size: number
  readonly products: ReadonlyArray<Product>
  readonly byId: ReadonlyMap<string, Product>
}

/** Fixed seed of the catalogue: every run, runtime and machine sees the same products. */
export const CATALOGUE_SEED = 20220701

const ID_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"

const pickDistinct = <T>(rng: Rng, xs: ReadonlyArray<T>, k: number): T[] => rng.shuffle([...xs]).slice(0, k)

const makeProduct = (rng: Rng, index: number, id: string): Product => {
  const cat = CATEGORIES[index % CATEGORIES.length]!
  const type = rng.pick(cat.types)
  const brand = rng.pick(BRANDS)
  const attributes = pickDistinct(rng, cat.attributes, 3)
  const groups = cat.groups.map((g) => {
    const k = 3 + rng.int(g.values.length - 2)
    const keep = new Set(pickDistinct(rng, g.values, k))
    return { name: g.name, values: g.values.filter((v) => keep.has(v)) }
  })
  const [lo, hi] = cat.price
  const price = lo + rng.int(hi - lo + 1)
  const rating = (3 + rng.int(21) / 10).toFixed(1)
  const title = `${brand} ${attributes[0]} ${type}`
  const description = `a ${attributes[1]} ${type} by ${brand} , ${attributes[2]} and made to last .`
  const text = `${title} ${attributes.join(" ")} ${description}`
  return { index, id, category: cat.name, type, brand, title, attributes, features: attributes, description, groups, price, rating, text }
}

/**
 * The products of one generated stream, in order: `label` names the stream (v1: the catalogue
 * size, one stream per size; v2's shared store: "store"). Ids are unique within the stream.
 */
export const productStream = (label: number | string): (() => Product) => {
  const rng = derive(CATALOGUE_SEED, "webshop", "catalogue", label)
  const seen = new Set<string>()
  let index = 0
  return () => {
    let id: string
    do {
      id = "b0"
      for (let k = 0; k < 4; k++) id += ID_CHARS[rng.int(ID_CHARS.length)]
    } while (seen.has(id) || /^b0\d+$/.test(id))
    seen.add(id)
    return makeProduct(rng, index++, id)
  }
}

const generate = (size: number): Catalogue => {
  const next = productStream(size)
  const products: Product[] = []
  const byId = new Map<string, Product>()
  for (let i = 0; i < size; i++) {
    const p = next()
    products.push(p)
    byId.set(p.id, p)
  }
  return { size, products, byId }
}

const cache = new Map<number, Catalogue>()

/** The catalogue of `size` products (built once per size, then shared). */
export const catalogue = (size: number): Catalogue => {
  let c = cache.get(size)
  if (!c) {
    c = generate(size)
    // Bounded (a server builds catalogues for its clients' option sets): the oldest goes first.
    if (cache.size >= 4) cache.delete(cache.keys().next().value as number)
    cache.set(size, c)
  }
  return c
}

/** Every type, attribute and option value of every category (phrase lexicons for graders). */
export const ALL_TYPES: ReadonlyArray<string> = CATEGORIES.flatMap((c) => c.types)
export const ALL_ATTRIBUTES: ReadonlyArray<string> = [...new Set(CATEGORIES.flatMap((c) => c.attributes))]
export const ALL_OPTION_VALUES: ReadonlyArray<string> = [...new Set(CATEGORIES.flatMap((c) => c.groups.flatMap((g) => g.values)))]
export const ALL_GROUP_NAMES: ReadonlyArray<string> = [...new Set(CATEGORIES.flatMap((c) => c.groups.map((g) => g.name)))]
