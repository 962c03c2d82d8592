/** The demo kitchen: two households, their users, a realistic Chinese home fridge and recipes. */

export interface DemoUser {
  readonly username: string;
  readonly displayName: string;
  /** Public on purpose: printed at start-up on the embedded default, documented in the README. */
  readonly password: string;
}

export const DEMO_USERS: readonly DemoUser[] = [
  { username: 'xiaojia', displayName: '小贾', password: 'demo-xiaojia' },
  { username: 'mama', displayName: '贾妈妈', password: 'demo-mama' },
  { username: 'laowang', displayName: '老王', password: 'demo-laowang' },
  { username: 'wangshen', displayName: '王婶', password: 'demo-wangshen' },
  { username: 'nainai', displayName: '奶奶', password: 'demo-nainai' },
];

type Ing = readonly [name: string, quantity: number | null, unit: string | null];

export interface DemoRecipe {
  readonly name: string;
  readonly servings: number;
  readonly ingredients: readonly Ing[];
  readonly steps: readonly string[];
  readonly tags: readonly string[];
}

/** [name, quantity, unit, location, days until expiry (null: none)] */
type Item = readonly [string, number, string, 'fridge' | 'freezer' | 'pantry', number | null];

export interface DemoHousehold {
  readonly name: string;
  readonly owner: string;
  readonly members: readonly string[];
  readonly fridge: readonly Item[];
  readonly recipes: readonly DemoRecipe[];
  /** [day offset from today, slot, recipe name] */
  readonly plans: readonly (readonly [number, 'breakfast' | 'lunch' | 'dinner', string])[];
  readonly notes: readonly (readonly ['allergy' | 'preference', string, string | null, string | null])[];
}

const r = (
  name: string,
  servings: number,
  ingredients: Ing[],
  steps: string[],
  tags: string[],
): DemoRecipe => ({
  name,
  servings,
  ingredients,
  steps,
  tags,
});

export const DEMO_HOUSEHOLDS: readonly DemoHousehold[] = [
  {
    name: '小贾家',
    owner: 'xiaojia',
    members: ['mama', 'nainai'],
    fridge: [
      ['鸡蛋', 10, '个', 'fridge', 12],
      ['番茄', 4, '个', 'fridge', 2],
      ['嫩豆腐', 1, '盒', 'fridge', 1],
      ['肉末', 200, '克', 'fridge', 1],
      ['西兰花', 1, '颗', 'fridge', 3],
      ['青椒', 2, '个', 'fridge', 4],
      ['葱', 1, '把', 'fridge', 3],
      ['牛奶', 1, '盒', 'fridge', -1],
      ['五花肉', 500, '克', 'freezer', 30],
      ['鸡翅', 8, '个', 'freezer', 20],
      ['土豆', 3, '个', 'pantry', 14],
      ['大蒜', 1, '头', 'pantry', 30],
      ['姜', 1, '块', 'pantry', 10],
      ['可乐', 2, '罐', 'pantry', 120],
      ['郫县豆瓣酱', 1, '瓶', 'pantry', 180],
      ['大米', 5, '千克', 'pantry', null],
    ],
    recipes: [
      r(
        '番茄炒蛋',
        2,
        [
          ['番茄', 2, '个'],
          ['鸡蛋', 3, '个'],
          ['葱', 1, '根'],
          ['白糖', 5, '克'],
          ['盐', 2, '克'],
        ],
        ['鸡蛋打散加少许盐，热油炒至凝固盛出', '番茄切块下锅炒出汁，加少许白糖', '倒回鸡蛋翻匀，撒葱花出锅'],
        ['家常', '快手', '下饭'],
      ),
      r(
        '红烧肉',
        4,
        [
          ['五花肉', 500, '克'],
          ['冰糖', 30, '克'],
          ['生抽', 15, '毫升'],
          ['老抽', 5, '毫升'],
          ['姜', 3, '片'],
          ['八角', 2, '个'],
        ],
        [
          '五花肉切块焯水',
          '小火炒糖色，下肉块翻炒上色',
          '加姜、八角、生抽老抽和热水，小火炖一小时',
          '大火收汁',
        ],
        ['家常', '硬菜'],
      ),
      r(
        '麻婆豆腐',
        3,
        [
          ['嫩豆腐', 1, '盒'],
          ['肉末', 100, '克'],
          ['郫县豆瓣酱', 15, '克'],
          ['花椒粉', 2, '克'],
          ['葱', 1, '根'],
          ['淀粉', 10, '克'],
        ],
        [
          '豆腐切块，淡盐水焯一下',
          '肉末炒散，下豆瓣酱炒出红油',
          '加水和豆腐小火煮三分钟',
          '勾芡，撒花椒粉和葱花',
        ],
        ['川菜', '辣', '下饭'],
      ),
      r(
        '可乐鸡翅',
        3,
        [
          ['鸡翅', 8, '个'],
          ['可乐', 330, '毫升'],
          ['姜', 3, '片'],
          ['生抽', 15, '毫升'],
        ],
        ['鸡翅两面划刀，冷水下锅焯水', '煎至两面金黄', '倒入可乐、生抽和姜片，中火收汁'],
        ['家常', '孩子爱吃'],
      ),
      r(
        '蒜蓉西兰花',
        2,
        [
          ['西兰花', 1, '颗'],
          ['大蒜', 4, '瓣'],
          ['盐', 2, '克'],
        ],
        ['西兰花掰小朵焯水一分钟', '蒜末爆香，下西兰花大火翻炒', '加盐调味出锅'],
        ['素菜', '快手', '清淡'],
      ),
      r(
        '酸辣土豆丝',
        2,
        [
          ['土豆', 2, '个'],
          ['干辣椒', 3, '个'],
          ['醋', 15, '毫升'],
          ['花椒', 1, '克'],
        ],
        ['土豆切细丝，清水冲去淀粉', '花椒干辣椒爆香', '大火快炒土豆丝，沿锅边淋醋'],
        ['素菜', '酸辣', '快手'],
      ),
      r(
        '青椒肉丝',
        2,
        [
          ['青椒', 2, '个'],
          ['猪里脊', 150, '克'],
          ['生抽', 10, '毫升'],
          ['淀粉', 5, '克'],
        ],
        ['里脊切丝，用生抽和淀粉抓匀', '肉丝滑炒变色盛出', '青椒丝炒软，倒回肉丝翻匀'],
        ['家常', '快手'],
      ),
    ],
    plans: [
      [0, 'dinner', '番茄炒蛋'],
      [0, 'dinner', '蒜蓉西兰花'],
      [1, 'lunch', '麻婆豆腐'],
      [1, 'dinner', '可乐鸡翅'],
      [2, 'dinner', '红烧肉'],
    ],
    notes: [
      ['allergy', '花生', '小宝', '严重过敏，花生油也不行'],
      ['preference', '少辣', '贾妈妈', null],
      ['preference', '不吃香菜', '小贾', null],
    ],
  },
  {
    name: '老王家',
    owner: 'laowang',
    members: ['wangshen', 'nainai'],
    fridge: [
      ['排骨', 1, '千克', 'freezer', 25],
      ['大白菜', 1, '颗', 'fridge', 5],
      ['鸡蛋', 6, '个', 'fridge', 7],
      ['鲈鱼', 1, '条', 'fridge', 1],
      ['牛腩', 600, '克', 'freezer', 40],
      ['老豆腐', 1, '块', 'fridge', 2],
    ],
    recipes: [
      r(
        '糖醋排骨',
        3,
        [
          ['排骨', 500, '克'],
          ['白糖', 40, '克'],
          ['香醋', 30, '毫升'],
          ['生抽', 15, '毫升'],
        ],
        ['排骨焯水后煎至微黄', '加糖醋汁和热水炖二十分钟', '大火收汁'],
        ['家常', '酸甜'],
      ),
      r(
        '清蒸鲈鱼',
        3,
        [
          ['鲈鱼', 1, '条'],
          ['葱', 2, '根'],
          ['姜', 4, '片'],
          ['蒸鱼豉油', 20, '毫升'],
        ],
        ['鲈鱼洗净划刀，铺姜片', '水开后蒸八分钟', '倒掉汤汁，铺葱丝淋热油和豉油'],
        ['清淡', '蒸菜'],
      ),
      r(
        '白菜炖豆腐',
        3,
        [
          ['大白菜', 0.5, '颗'],
          ['老豆腐', 1, '块'],
          ['葱', 1, '根'],
        ],
        ['豆腐切块煎至两面金黄', '白菜炒软，加水和豆腐炖十分钟'],
        ['清淡', '家常'],
      ),
      r(
        '番茄炒蛋',
        2,
        [
          ['西红柿', 2, '个'],
          ['鸡蛋', 4, '个'],
        ],
        ['老王家的做法：不放糖，鸡蛋多一个'],
        ['家常'],
      ),
    ],
    plans: [
      [0, 'dinner', '清蒸鲈鱼'],
      [1, 'dinner', '糖醋排骨'],
    ],
    notes: [
      ['allergy', '虾', '老王', '海鲜过敏'],
      ['preference', '清淡少油', null, '王婶血压偏高'],
    ],
  },
];
