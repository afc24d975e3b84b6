--
-- PostgreSQL database dump
--

-- Dumped from database version 15.2
-- Dumped by pg_dump version 15.2 (Ubuntu 15.2-1.pgdg22.04+1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_table_access_method = heap;

--
-- Name: Album; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public."Album" (
    "AlbumId" integer NOT NULL,
    "Title" character varying(160) NOT NULL,
    "ArtistId" integer NOT NULL
);


--
-- Name: Artist; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public."Artist" (
    "ArtistId" integer NOT NULL,
    "Name" character varying(120)
);


--
-- Name: Customer; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public."Customer" (
    "CustomerId" integer NOT NULL,
    "FirstName" character varying(40) NOT NULL,
    "LastName" character varying(20) NOT NULL,
    "Company" character varying(80),
    "Address" character varying(70),
    "City" character varying(40),
    "State" character varying(40),
    "Country" character varying(40),
    "PostalCode" character varying(10),
    "Phone" character varying(24),
    "Fax" character varying(24),
    "Email" character varying(60) NOT NULL,
    "SupportRepId" integer
);


--
-- Name: Employee; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public."Employee" (
    "EmployeeId" integer NOT NULL,
    "LastName" character varying(20) NOT NULL,
    "FirstName" character varying(20) NOT NULL,
    "Title" character varying(30),
    "ReportsTo" integer,
    "BirthDate" timestamp without time zone,
    "HireDate" timestamp without time zone,
    "Address" character varying(70),
    "City" character varying(40),
    "State" character varying(40),
    "Country" character varying(40),
    "PostalCode" character varying(10),
    "Phone" character varying(24),
    "Fax" character varying(24),
    "Email" character varying(60)
);


--
-- Name: Genre; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public."Genre" (
    "GenreId" integer NOT NULL,
    "Name" character varying(120)
);


--
-- Name: Invoice; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public."Invoice" (
    "InvoiceId" integer NOT NULL,
    "CustomerId" integer NOT NULL,
    "InvoiceDate" timestamp without time zone NOT NULL,
    "BillingAddress" character varying(70),
    "BillingCity" character varying(40),
    "BillingState" character varying(40),
    "BillingCountry" character varying(40),
    "BillingPostalCode" character varying(10),
    "Total" numeric(10,2) NOT NULL
);


--
-- Name: InvoiceLine; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public."InvoiceLine" (
    "InvoiceLineId" integer NOT NULL,
    "InvoiceId" integer NOT NULL,
    "TrackId" integer NOT NULL,
    "UnitPrice" numeric(10,2) NOT NULL,
    "Quantity" integer NOT NULL
);


--
-- Name: MediaType; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public."MediaType" (
    "MediaTypeId" integer NOT NULL,
    "Name" character varying(120)
);


--
-- Name: Playlist; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public."Playlist" (
    "PlaylistId" integer NOT NULL,
    "Name" character varying(120)
);


--
-- Name: PlaylistTrack; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public."PlaylistTrack" (
    "PlaylistId" integer NOT NULL,
    "TrackId" integer NOT NULL
);


--
-- Name: Track; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public."Track" (
    "TrackId" integer NOT NULL,
    "Name" character varying(200) NOT NULL,
    "AlbumId" integer,
    "MediaTypeId" integer NOT NULL,
    "GenreId" integer,
    "Composer" character varying(220),
    "Milliseconds" integer NOT NULL,
    "Bytes" integer,
    "UnitPrice" numeric(10,2) NOT NULL
);


--
-- Data for Name: Album; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public."Album" ("AlbumId", "Title", "ArtistId") FROM stdin;
1	For Those About To Rock We Salute You	1
2	Balls to the Wall	2
3	Restless and Wild	2
4	Let There Be Rock	1
5	Big Ones	3
6	Jagged Little Pill	4
7	Facelift	5
8	Warner 25 Anos	6
9	Plays Metallica By Four Cellos	7
10	Audioslave	8
11	Out Of Exile	8
12	BackBeat Soundtrack	9
13	The Best Of Billy Cobham	10
14	Alcohol Fueled Brewtality Live! [Disc 1]	11
15	Alcohol Fueled Brewtality Live! [Disc 2]	11
16	Black Sabbath	12
17	Black Sabbath Vol. 4 (Remaster)	12
18	Body Count	13
19	Chemical Wedding	14
20	The Best Of Buddy Guy - The Millenium Collection	15
21	Prenda Minha	16
22	Sozinho Remix Ao Vivo	16
23	Minha Historia	17
24	Afrociberdelia	18
25	Da Lama Ao Caos	18
26	Ac�stico MTV [Live]	19
27	Cidade Negra - Hits	19
28	Na Pista	20
29	Ax� Bahia 2001	21
30	BBC Sessions [Disc 1] [Live]	22
31	Bongo Fury	23
32	Carnaval 2001	21
33	Chill: Brazil (Disc 1)	24
34	Chill: Brazil (Disc 2)	6
35	Garage Inc. (Disc 1)	50
36	Greatest Hits II	51
37	Greatest Kiss	52
38	Heart of the Night	53
39	International Superhits	54
40	Into The Light	55
41	Meus Momentos	56
42	Minha Hist�ria	57
43	MK III The Final Concerts [Disc 1]	58
44	Physical Graffiti [Disc 1]	22
45	Sambas De Enredo 2001	21
46	Supernatural	59
47	The Best of Ed Motta	37
48	The Essential Miles Davis [Disc 1]	68
49	The Essential Miles Davis [Disc 2]	68
50	The Final Concerts (Disc 2)	58
51	Up An' Atom	69
52	Vin�cius De Moraes - Sem Limite	70
53	Vozes do MPB	21
54	Chronicle, Vol. 1	76
55	Chronicle, Vol. 2	76
56	C�ssia Eller - Cole��o Sem Limite [Disc 2]	77
57	C�ssia Eller - Sem Limite [Disc 1]	77
58	Come Taste The Band	58
59	Deep Purple In Rock	58
60	Fireball	58
61	Knocking at Your Back Door: The Best Of Deep Purple in the 80's	58
62	Machine Head	58
63	Purpendicular	58
64	Slaves And Masters	58
65	Stormbringer	58
66	The Battle Rages On	58
67	Vault: Def Leppard's Greatest Hits	78
68	Outbreak	79
69	Djavan Ao Vivo - Vol. 02	80
70	Djavan Ao Vivo - Vol. 1	80
71	Elis Regina-Minha Hist�ria	41
72	The Cream Of Clapton	81
73	Unplugged	81
74	Album Of The Year	82
75	Angel Dust	82
76	King For A Day Fool For A Lifetime	82
77	The Real Thing	82
78	Deixa Entrar	83
79	In Your Honor [Disc 1]	84
80	In Your Honor [Disc 2]	84
81	One By One	84
82	The Colour And The Shape	84
83	My Way: The Best Of Frank Sinatra [Disc 1]	85
84	Roda De Funk	86
85	As Can��es de Eu Tu Eles	27
86	Quanta Gente Veio Ver (Live)	27
87	Quanta Gente Veio ver--B�nus De Carnaval	27
88	Faceless	87
89	American Idiot	54
90	Appetite for Destruction	88
91	Use Your Illusion I	88
92	Use Your Illusion II	88
93	Blue Moods	89
94	A Matter of Life and Death	90
95	A Real Dead One	90
96	A Real Live One	90
97	Brave New World	90
98	Dance Of Death	90
99	Fear Of The Dark	90
100	Iron Maiden	90
101	Killers	90
102	Live After Death	90
103	Live At Donington 1992 (Disc 1)	90
104	Live At Donington 1992 (Disc 2)	90
105	No Prayer For The Dying	90
106	Piece Of Mind	90
107	Powerslave	90
108	Rock In Rio [CD1]	90
109	Rock In Rio [CD2]	90
110	Seventh Son of a Seventh Son	90
111	Somewhere in Time	90
112	The Number of The Beast	90
113	The X Factor	90
114	Virtual XI	90
115	Sex Machine	91
116	Emergency On Planet Earth	92
117	Synkronized	92
118	The Return Of The Space Cowboy	92
119	Get Born	93
120	Are You Experienced?	94
121	Surfing with the Alien (Remastered)	95
122	Jorge Ben Jor 25 Anos	46
123	Jota Quest-1995	96
124	Cafezinho	97
125	Living After Midnight	98
126	Unplugged [Live]	52
127	BBC Sessions [Disc 2] [Live]	22
128	Coda	22
129	Houses Of The Holy	22
130	In Through The Out Door	22
131	IV	22
132	Led Zeppelin I	22
133	Led Zeppelin II	22
134	Led Zeppelin III	22
135	Physical Graffiti [Disc 2]	22
136	Presence	22
137	The Song Remains The Same (Disc 1)	22
138	The Song Remains The Same (Disc 2)	22
139	A TempestadeTempestade Ou O Livro Dos Dias	99
140	Mais Do Mesmo	99
141	Greatest Hits	100
142	Lulu Santos - RCA 100 Anos De M�sica - �lbum 01	101
143	Lulu Santos - RCA 100 Anos De M�sica - �lbum 02	101
144	Misplaced Childhood	102
145	Barulhinho Bom	103
146	Seek And Shall Find: More Of The Best (1963-1981)	104
147	The Best Of Men At Work	105
148	Black Album	50
149	Garage Inc. (Disc 2)	50
150	Kill 'Em All	50
151	Load	50
152	Master Of Puppets	50
153	ReLoad	50
154	Ride The Lightning	50
155	St. Anger	50
156	...And Justice For All	50
157	Miles Ahead	68
158	Milton Nascimento Ao Vivo	42
159	Minas	42
160	Ace Of Spades	106
161	Demorou...	108
162	Motley Crue Greatest Hits	109
163	From The Muddy Banks Of The Wishkah [Live]	110
164	Nevermind	110
165	Compositores	111
166	Olodum	112
167	Ac�stico MTV	113
168	Arquivo II	113
169	Arquivo Os Paralamas Do Sucesso	113
170	Bark at the Moon (Remastered)	114
171	Blizzard of Ozz	114
172	Diary of a Madman (Remastered)	114
173	No More Tears (Remastered)	114
174	Tribute	114
175	Walking Into Clarksdale	115
176	Original Soundtracks 1	116
177	The Beast Live	117
178	Live On Two Legs [Live]	118
179	Pearl Jam	118
180	Riot Act	118
181	Ten	118
182	Vs.	118
183	Dark Side Of The Moon	120
184	Os C�es Ladram Mas A Caravana N�o P�ra	121
185	Greatest Hits I	51
186	News Of The World	51
187	Out Of Time	122
188	Green	124
189	New Adventures In Hi-Fi	124
190	The Best Of R.E.M.: The IRS Years	124
191	Cesta B�sica	125
192	Raul Seixas	126
193	Blood Sugar Sex Magik	127
194	By The Way	127
195	Californication	127
196	Retrospective I (1974-1980)	128
197	Santana - As Years Go By	59
198	Santana Live	59
199	Maquinarama	130
200	O Samba Pocon�	130
201	Judas 0: B-Sides and Rarities	131
202	Rotten Apples: Greatest Hits	131
203	A-Sides	132
204	Morning Dance	53
205	In Step	133
206	Core	134
207	Mezmerize	135
208	[1997] Black Light Syndrome	136
209	Live [Disc 1]	137
210	Live [Disc 2]	137
211	The Singles	138
212	Beyond Good And Evil	139
213	Pure Cult: The Best Of The Cult (For Rockers, Ravers, Lovers & Sinners) [UK]	139
214	The Doors	140
215	The Police Greatest Hits	141
216	Hot Rocks, 1964-1971 (Disc 1)	142
217	No Security	142
218	Voodoo Lounge	142
219	Tangents	143
220	Transmission	143
221	My Generation - The Very Best Of The Who	144
222	Serie Sem Limite (Disc 1)	145
223	Serie Sem Limite (Disc 2)	145
224	Ac�stico	146
225	Volume Dois	146
226	Battlestar Galactica: The Story So Far	147
227	Battlestar Galactica, Season 3	147
228	Heroes, Season 1	148
229	Lost, Season 3	149
230	Lost, Season 1	149
231	Lost, Season 2	149
232	Achtung Baby	150
233	All That You Can't Leave Behind	150
234	B-Sides 1980-1990	150
235	How To Dismantle An Atomic Bomb	150
236	Pop	150
237	Rattle And Hum	150
238	The Best Of 1980-1990	150
239	War	150
240	Zooropa	150
241	UB40 The Best Of - Volume Two [UK]	151
242	Diver Down	152
243	The Best Of Van Halen, Vol. I	152
244	Van Halen	152
245	Van Halen III	152
246	Contraband	153
247	Vinicius De Moraes	72
248	Ao Vivo [IMPORT]	155
249	The Office, Season 1	156
250	The Office, Season 2	156
251	The Office, Season 3	156
252	Un-Led-Ed	157
253	Battlestar Galactica (Classic), Season 1	158
254	Aquaman	159
255	Instant Karma: The Amnesty International Campaign to Save Darfur	150
256	Speak of the Devil	114
257	20th Century Masters - The Millennium Collection: The Best of Scorpions	179
258	House of Pain	180
259	Radio Brasil (O Som da Jovem Vanguarda) - Seleccao de Henrique Amaro	36
260	Cake: B-Sides and Rarities	196
261	LOST, Season 4	149
262	Quiet Songs	197
263	Muso Ko	198
264	Realize	199
265	Every Kind of Light	200
266	Duos II	201
267	Worlds	202
268	The Best of Beethoven	203
269	Temple of the Dog	204
270	Carry On	205
271	Revelations	8
272	Adorate Deum: Gregorian Chant from the Proper of the Mass	206
273	Allegri: Miserere	207
274	Pachelbel: Canon & Gigue	208
275	Vivaldi: The Four Seasons	209
276	Bach: Violin Concertos	210
277	Bach: Goldberg Variations	211
278	Bach: The Cello Suites	212
279	Handel: The Messiah (Highlights)	213
280	The World of Classical Favourites	214
281	Sir Neville Marriner: A Celebration	215
282	Mozart: Wind Concertos	216
283	Haydn: Symphonies 99 - 104	217
284	Beethoven: Symhonies Nos. 5 & 6	218
285	A Soprano Inspired	219
286	Great Opera Choruses	220
287	Wagner: Favourite Overtures	221
288	Faur�: Requiem, Ravel: Pavane & Others	222
289	Tchaikovsky: The Nutcracker	223
290	The Last Night of the Proms	224
291	Puccini: Madama Butterfly - Highlights	225
292	Holst: The Planets, Op. 32 & Vaughan Williams: Fantasies	226
293	Pavarotti's Opera Made Easy	227
294	Great Performances - Barber's Adagio and Other Romantic Favorites for Strings	228
295	Carmina Burana	229
296	A Copland Celebration, Vol. I	230
297	Bach: Toccata & Fugue in D Minor	231
298	Prokofiev: Symphony No.1	232
299	Scheherazade	233
300	Bach: The Brandenburg Concertos	234
301	Chopin: Piano Concertos Nos. 1 & 2	235
302	Mascagni: Cavalleria Rusticana	236
303	Sibelius: Finlandia	237
304	Beethoven Piano Sonatas: Moonlight & Pastorale	238
305	Great Recordings of the Century - Mahler: Das Lied von der Erde	240
306	Elgar: Cello Concerto & Vaughan Williams: Fantasias	241
307	Adams, John: The Chairman Dances	242
308	Tchaikovsky: 1812 Festival Overture, Op.49, Capriccio Italien & Beethoven: Wellington's Victory	243
309	Palestrina: Missa Papae Marcelli & Allegri: Miserere	244
310	Prokofiev: Romeo & Juliet	245
311	Strauss: Waltzes	226
312	Berlioz: Symphonie Fantastique	245
313	Bizet: Carmen Highlights	246
314	English Renaissance	247
315	Handel: Music for the Royal Fireworks (Original Version 1749)	208
316	Grieg: Peer Gynt Suites & Sibelius: Pell�as et M�lisande	248
317	Mozart Gala: Famous Arias	249
318	SCRIABIN: Vers la flamme	250
319	Armada: Music from the Courts of England and Spain	251
320	Mozart: Symphonies Nos. 40 & 41	248
321	Back to Black	252
322	Frank	252
323	Carried to Dust (Bonus Track Version)	253
324	Beethoven: Symphony No. 6 'Pastoral' Etc.	254
325	Bartok: Violin & Viola Concertos	255
326	Mendelssohn: A Midsummer Night's Dream	256
327	Bach: Orchestral Suites Nos. 1 - 4	257
328	Charpentier: Divertissements, Airs & Concerts	258
329	South American Getaway	259
330	G�recki: Symphony No. 3	260
331	Purcell: The Fairy Queen	261
332	The Ultimate Relexation Album	262
333	Purcell: Music for the Queen Mary	263
334	Weill: The Seven Deadly Sins	264
335	J.S. Bach: Chaconne, Suite in E Minor, Partita in E Major & Prelude, Fugue and Allegro	265
336	Prokofiev: Symphony No.5 & Stravinksy: Le Sacre Du Printemps	248
337	Szymanowski: Piano Works, Vol. 1	266
338	Nielsen: The Six Symphonies	267
339	Great Recordings of the Century: Paganini's 24 Caprices	268
340	Liszt - 12 �tudes D'Execution Transcendante	269
341	Great Recordings of the Century - Shubert: Schwanengesang, 4 Lieder	270
342	Locatelli: Concertos for Violin, Strings and Continuo, Vol. 3	271
343	Respighi:Pines of Rome	226
344	Schubert: The Late String Quartets & String Quintet (3 CD's)	272
345	Monteverdi: L'Orfeo	273
346	Mozart: Chamber Music	274
347	Koyaanisqatsi (Soundtrack from the Motion Picture)	275
\.


--
-- Data for Name: Artist; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public."Artist" ("ArtistId", "Name") FROM stdin;
1	AC/DC
2	Accept
3	Aerosmith
4	Alanis Morissette
5	Alice In Chains
6	Ant�nio Carlos Jobim
7	Apocalyptica
8	Audioslave
9	BackBeat
10	Billy Cobham
11	Black Label Society
12	Black Sabbath
13	Body Count
14	Bruce Dickinson
15	Buddy Guy
16	Caetano Veloso
17	Chico Buarque
18	Chico Science & Na��o Zumbi
19	Cidade Negra
20	Cl�udio Zoli
21	Various Artists
22	Led Zeppelin
23	Frank Zappa & Captain Beefheart
24	Marcos Valle
25	Milton Nascimento & Bebeto
26	Azymuth
27	Gilberto Gil
28	Jo�o Gilberto
29	Bebel Gilberto
30	Jorge Vercilo
31	Baby Consuelo
32	Ney Matogrosso
33	Luiz Melodia
34	Nando Reis
35	Pedro Lu�s & A Parede
36	O Rappa
37	Ed Motta
38	Banda Black Rio
39	Fernanda Porto
40	Os Cariocas
41	Elis Regina
42	Milton Nascimento
43	A Cor Do Som
44	Kid Abelha
45	Sandra De S�
46	Jorge Ben
47	Hermeto Pascoal
48	Bar�o Vermelho
49	Edson, DJ Marky & DJ Patife Featuring Fernanda Porto
50	Metallica
51	Queen
52	Kiss
53	Spyro Gyra
54	Green Day
55	David Coverdale
56	Gonzaguinha
57	Os Mutantes
58	Deep Purple
59	Santana
60	Santana Feat. Dave Matthews
61	Santana Feat. Everlast
62	Santana Feat. Rob Thomas
63	Santana Feat. Lauryn Hill & Cee-Lo
64	Santana Feat. The Project G&B
65	Santana Feat. Man�
66	Santana Feat. Eagle-Eye Cherry
67	Santana Feat. Eric Clapton
68	Miles Davis
69	Gene Krupa
70	Toquinho & Vin�cius
71	Vin�cius De Moraes & Baden Powell
72	Vin�cius De Moraes
73	Vin�cius E Qurteto Em Cy
74	Vin�cius E Odette Lara
75	Vinicius, Toquinho & Quarteto Em Cy
76	Creedence Clearwater Revival
77	C�ssia Eller
78	Def Leppard
79	Dennis Chambers
80	Djavan
81	Eric Clapton
82	Faith No More
83	Falamansa
84	Foo Fighters
85	Frank Sinatra
86	Funk Como Le Gusta
87	Godsmack
88	Guns N' Roses
89	Incognito
90	Iron Maiden
91	James Brown
92	Jamiroquai
93	JET
94	Jimi Hendrix
95	Joe Satriani
96	Jota Quest
97	Jo�o Suplicy
98	Judas Priest
99	Legi�o Urbana
100	Lenny Kravitz
101	Lulu Santos
102	Marillion
103	Marisa Monte
104	Marvin Gaye
105	Men At Work
106	Mot�rhead
107	Mot�rhead & Girlschool
108	M�nica Marianno
109	M�tley Cr�e
110	Nirvana
111	O Ter�o
112	Olodum
113	Os Paralamas Do Sucesso
114	Ozzy Osbourne
115	Page & Plant
116	Passengers
117	Paul D'Ianno
118	Pearl Jam
119	Peter Tosh
120	Pink Floyd
121	Planet Hemp
122	R.E.M. Feat. Kate Pearson
123	R.E.M. Feat. KRS-One
124	R.E.M.
125	Raimundos
126	Raul Seixas
127	Red Hot Chili Peppers
128	Rush
129	Simply Red
130	Skank
131	Smashing Pumpkins
132	Soundgarden
133	Stevie Ray Vaughan & Double Trouble
134	Stone Temple Pilots
135	System Of A Down
136	Terry Bozzio, Tony Levin & Steve Stevens
137	The Black Crowes
138	The Clash
139	The Cult
140	The Doors
141	The Police
142	The Rolling Stones
143	The Tea Party
144	The Who
145	Tim Maia
146	Tit�s
147	Battlestar Galactica
148	Heroes
149	Lost
150	U2
151	UB40
152	Van Halen
153	Velvet Revolver
154	Whitesnake
155	Zeca Pagodinho
156	The Office
157	Dread Zeppelin
158	Battlestar Galactica (Classic)
159	Aquaman
160	Christina Aguilera featuring BigElf
161	Aerosmith & Sierra Leone's Refugee Allstars
162	Los Lonely Boys
163	Corinne Bailey Rae
164	Dhani Harrison & Jakob Dylan
165	Jackson Browne
166	Avril Lavigne
167	Big & Rich
168	Youssou N'Dour
169	Black Eyed Peas
170	Jack Johnson
171	Ben Harper
172	Snow Patrol
173	Matisyahu
174	The Postal Service
175	Jaguares
176	The Flaming Lips
177	Jack's Mannequin & Mick Fleetwood
178	Regina Spektor
179	Scorpions
180	House Of Pain
181	Xis
182	Nega Gizza
183	Gustavo & Andres Veiga & Salazar
184	Rodox
185	Charlie Brown Jr.
186	Pedro Lu�s E A Parede
187	Los Hermanos
188	Mundo Livre S/A
189	Otto
190	Instituto
191	Na��o Zumbi
192	DJ Dolores & Orchestra Santa Massa
193	Seu Jorge
194	Sabotage E Instituto
195	Stereo Maracana
196	Cake
197	Aisha Duo
198	Habib Koit� and Bamada
199	Karsh Kale
200	The Posies
201	Luciana Souza/Romero Lubambo
202	Aaron Goldberg
203	Nicolaus Esterhazy Sinfonia
204	Temple of the Dog
205	Chris Cornell
206	Alberto Turco & Nova Schola Gregoriana
207	Richard Marlow & The Choir of Trinity College, Cambridge
208	English Concert & Trevor Pinnock
209	Anne-Sophie Mutter, Herbert Von Karajan & Wiener Philharmoniker
210	Hilary Hahn, Jeffrey Kahane, Los Angeles Chamber Orchestra & Margaret Batjer
211	Wilhelm Kempff
212	Yo-Yo Ma
213	Scholars Baroque Ensemble
214	Academy of St. Martin in the Fields & Sir Neville Marriner
215	Academy of St. Martin in the Fields Chamber Ensemble & Sir Neville Marriner
216	Berliner Philharmoniker, Claudio Abbado & Sabine Meyer
217	Royal Philharmonic Orchestra & Sir Thomas Beecham
218	Orchestre R�volutionnaire et Romantique & John Eliot Gardiner
219	Britten Sinfonia, Ivor Bolton & Lesley Garrett
220	Chicago Symphony Chorus, Chicago Symphony Orchestra & Sir Georg Solti
221	Sir Georg Solti & Wiener Philharmoniker
222	Academy of St. Martin in the Fields, John Birch, Sir Neville Marriner & Sylvia McNair
223	London Symphony Orchestra & Sir Charles Mackerras
224	Barry Wordsworth & BBC Concert Orchestra
225	Herbert Von Karajan, Mirella Freni & Wiener Philharmoniker
226	Eugene Ormandy
227	Luciano Pavarotti
228	Leonard Bernstein & New York Philharmonic
229	Boston Symphony Orchestra & Seiji Ozawa
230	Aaron Copland & London Symphony Orchestra
231	Ton Koopman
232	Sergei Prokofiev & Yuri Temirkanov
233	Chicago Symphony Orchestra & Fritz Reiner
234	Orchestra of The Age of Enlightenment
235	Emanuel Ax, Eugene Ormandy & Philadelphia Orchestra
236	James Levine
237	Berliner Philharmoniker & Hans Rosbaud
238	Maurizio Pollini
239	Academy of St. Martin in the Fields, Sir Neville Marriner & William Bennett
240	Gustav Mahler
241	Felix Schmidt, London Symphony Orchestra & Rafael Fr�hbeck de Burgos
242	Edo de Waart & San Francisco Symphony
243	Antal Dor�ti & London Symphony Orchestra
244	Choir Of Westminster Abbey & Simon Preston
245	Michael Tilson Thomas & San Francisco Symphony
246	Chor der Wiener Staatsoper, Herbert Von Karajan & Wiener Philharmoniker
247	The King's Singers
248	Berliner Philharmoniker & Herbert Von Karajan
249	Sir Georg Solti, Sumi Jo & Wiener Philharmoniker
250	Christopher O'Riley
251	Fretwork
252	Amy Winehouse
253	Calexico
254	Otto Klemperer & Philharmonia Orchestra
255	Yehudi Menuhin
256	Philharmonia Orchestra & Sir Neville Marriner
257	Academy of St. Martin in the Fields, Sir Neville Marriner & Thurston Dart
258	Les Arts Florissants & William Christie
259	The 12 Cellists of The Berlin Philharmonic
260	Adrian Leaper & Doreen de Feis
261	Roger Norrington, London Classical Players
262	Charles Dutoit & L'Orchestre Symphonique de Montr�al
263	Equale Brass Ensemble, John Eliot Gardiner & Munich Monteverdi Orchestra and Choir
264	Kent Nagano and Orchestre de l'Op�ra de Lyon
265	Julian Bream
266	Martin Roscoe
267	G�teborgs Symfoniker & Neeme J�rvi
268	Itzhak Perlman
269	Michele Campanella
270	Gerald Moore
271	Mela Tenenbaum, Pro Musica Prague & Richard Kapp
272	Emerson String Quartet
273	C. Monteverdi, Nigel Rogers - Chiaroscuro; London Baroque; London Cornett & Sackbu
274	Nash Ensemble
275	Philip Glass Ensemble
\.


--
-- Data for Name: Customer; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public."Customer" ("CustomerId", "FirstName", "LastName", "Company", "Address", "City", "State", "Country", "PostalCode", "Phone", "Fax", "Email", "SupportRepId") FROM stdin;
1	Lu�s	Gon�alves	Embraer - Empresa Brasileira de Aeron�utica S.A.	Av. Brigadeiro Faria Lima, 2170	S�o Jos� dos Campos	SP	Brazil	12227-000	+55 (12) 3923-5555	+55 (12) 3923-5566	luisg@embraer.com.br	3
2	Leonie	K�hler	\N	Theodor-Heuss-Stra�e 34	Stuttgart	\N	Germany	70174	+49 0711 2842222	\N	leonekohler@surfeu.de	5
3	Fran�ois	Tremblay	\N	1498 rue B�langer	Montr�al	QC	Canada	H2G 1A7	+1 (514) 721-4711	\N	ftremblay@gmail.com	3
4	Bj�rn	Hansen	\N	Ullev�lsveien 14	Oslo	\N	Norway	0171	+47 22 44 22 22	\N	bjorn.hansen@yahoo.no	4
5	Franti�ek	Wichterlov�	JetBrains s.r.o.	Klanova 9/506	Prague	\N	Czech Republic	14700	+420 2 4172 5555	+420 2 4172 5555	frantisekw@jetbrains.com	4
6	Helena	Hol�	\N	Rilsk� 3174/6	Prague	\N	Czech Republic	14300	+420 2 4177 0449	\N	hholy@gmail.com	5
7	Astrid	Gruber	\N	Rotenturmstra�e 4, 1010 Innere Stadt	Vienne	\N	Austria	1010	+43 01 5134505	\N	astrid.gruber@apple.at	5
8	Daan	Peeters	\N	Gr�trystraat 63	Brussels	\N	Belgium	1000	+32 02 219 03 03	\N	daan_peeters@apple.be	4
9	Kara	Nielsen	\N	S�nder Boulevard 51	Copenhagen	\N	Denmark	1720	+453 3331 9991	\N	kara.nielsen@jubii.dk	4
10	Eduardo	Martins	Woodstock Discos	Rua Dr. Falc�o Filho, 155	S�o Paulo	SP	Brazil	01007-010	+55 (11) 3033-5446	+55 (11) 3033-4564	eduardo@woodstock.com.br	4
11	Alexandre	Rocha	Banco do Brasil S.A.	Av. Paulista, 2022	S�o Paulo	SP	Brazil	01310-200	+55 (11) 3055-3278	+55 (11) 3055-8131	alero@uol.com.br	5
12	Roberto	Almeida	Riotur	Pra�a Pio X, 119	Rio de Janeiro	RJ	Brazil	20040-020	+55 (21) 2271-7000	+55 (21) 2271-7070	roberto.almeida@riotur.gov.br	3
13	Fernanda	Ramos	\N	Qe 7 Bloco G	Bras�lia	DF	Brazil	71020-677	+55 (61) 3363-5547	+55 (61) 3363-7855	fernadaramos4@uol.com.br	4
14	Mark	Philips	Telus	8210 111 ST NW	Edmonton	AB	Canada	T6G 2C7	+1 (780) 434-4554	+1 (780) 434-5565	mphilips12@shaw.ca	5
15	Jennifer	Peterson	Rogers Canada	700 W Pender Street	Vancouver	BC	Canada	V6C 1G8	+1 (604) 688-2255	+1 (604) 688-8756	jenniferp@rogers.ca	3
16	Frank	Harris	Google Inc.	1600 Amphitheatre Parkway	Mountain View	CA	USA	94043-1351	+1 (650) 253-0000	+1 (650) 253-0000	fharris@google.com	4
17	Jack	Smith	Microsoft Corporation	1 Microsoft Way	Redmond	WA	USA	98052-8300	+1 (425) 882-8080	+1 (425) 882-8081	jacksmith@microsoft.com	5
18	Michelle	Brooks	\N	627 Broadway	New York	NY	USA	10012-2612	+1 (212) 221-3546	+1 (212) 221-4679	michelleb@aol.com	3
19	Tim	Goyer	Apple Inc.	1 Infinite Loop	Cupertino	CA	USA	95014	+1 (408) 996-1010	+1 (408) 996-1011	tgoyer@apple.com	3
20	Dan	Miller	\N	541 Del Medio Avenue	Mountain View	CA	USA	94040-111	+1 (650) 644-3358	\N	dmiller@comcast.com	4
21	Kathy	Chase	\N	801 W 4th Street	Reno	NV	USA	89503	+1 (775) 223-7665	\N	kachase@hotmail.com	5
22	Heather	Leacock	\N	120 S Orange Ave	Orlando	FL	USA	32801	+1 (407) 999-7788	\N	hleacock@gmail.com	4
23	John	Gordon	\N	69 Salem Street	Boston	MA	USA	2113	+1 (617) 522-1333	\N	johngordon22@yahoo.com	4
24	Frank	Ralston	\N	162 E Superior Street	Chicago	IL	USA	60611	+1 (312) 332-3232	\N	fralston@gmail.com	3
25	Victor	Stevens	\N	319 N. Frances Street	Madison	WI	USA	53703	+1 (608) 257-0597	\N	vstevens@yahoo.com	5
26	Richard	Cunningham	\N	2211 W Berry Street	Fort Worth	TX	USA	76110	+1 (817) 924-7272	\N	ricunningham@hotmail.com	4
27	Patrick	Gray	\N	1033 N Park Ave	Tucson	AZ	USA	85719	+1 (520) 622-4200	\N	patrick.gray@aol.com	4
28	Julia	Barnett	\N	302 S 700 E	Salt Lake City	UT	USA	84102	+1 (801) 531-7272	\N	jubarnett@gmail.com	5
29	Robert	Brown	\N	796 Dundas Street West	Toronto	ON	Canada	M6J 1V1	+1 (416) 363-8888	\N	robbrown@shaw.ca	3
30	Edward	Francis	\N	230 Elgin Street	Ottawa	ON	Canada	K2P 1L7	+1 (613) 234-3322	\N	edfrancis@yachoo.ca	3
31	Martha	Silk	\N	194A Chain Lake Drive	Halifax	NS	Canada	B3S 1C5	+1 (902) 450-0450	\N	marthasilk@gmail.com	5
32	Aaron	Mitchell	\N	696 Osborne Street	Winnipeg	MB	Canada	R3L 2B9	+1 (204) 452-6452	\N	aaronmitchell@yahoo.ca	4
33	Ellie	Sullivan	\N	5112 48 Street	Yellowknife	NT	Canada	X1A 1N6	+1 (867) 920-2233	\N	ellie.sullivan@shaw.ca	3
34	Jo�o	Fernandes	\N	Rua da Assun��o 53	Lisbon	\N	Portugal	\N	+351 (213) 466-111	\N	jfernandes@yahoo.pt	4
35	Madalena	Sampaio	\N	Rua dos Campe�es Europeus de Viena, 4350	Porto	\N	Portugal	\N	+351 (225) 022-448	\N	masampaio@sapo.pt	4
36	Hannah	Schneider	\N	Tauentzienstra�e 8	Berlin	\N	Germany	10789	+49 030 26550280	\N	hannah.schneider@yahoo.de	5
37	Fynn	Zimmermann	\N	Berger Stra�e 10	Frankfurt	\N	Germany	60316	+49 069 40598889	\N	fzimmermann@yahoo.de	3
38	Niklas	Schr�der	\N	Barbarossastra�e 19	Berlin	\N	Germany	10779	+49 030 2141444	\N	nschroder@surfeu.de	3
39	Camille	Bernard	\N	4, Rue Milton	Paris	\N	France	75009	+33 01 49 70 65 65	\N	camille.bernard@yahoo.fr	4
40	Dominique	Lefebvre	\N	8, Rue Hanovre	Paris	\N	France	75002	+33 01 47 42 71 71	\N	dominiquelefebvre@gmail.com	4
41	Marc	Dubois	\N	11, Place Bellecour	Lyon	\N	France	69002	+33 04 78 30 30 30	\N	marc.dubois@hotmail.com	5
42	Wyatt	Girard	\N	9, Place Louis Barthou	Bordeaux	\N	France	33000	+33 05 56 96 96 96	\N	wyatt.girard@yahoo.fr	3
43	Isabelle	Mercier	\N	68, Rue Jouvence	Dijon	\N	France	21000	+33 03 80 73 66 99	\N	isabelle_mercier@apple.fr	3
44	Terhi	H�m�l�inen	\N	Porthaninkatu 9	Helsinki	\N	Finland	00530	+358 09 870 2000	\N	terhi.hamalainen@apple.fi	3
45	Ladislav	Kov�cs	\N	Erzs�bet krt. 58.	Budapest	\N	Hungary	H-1073	\N	\N	ladislav_kovacs@apple.hu	3
46	Hugh	O'Reilly	\N	3 Chatham Street	Dublin	Dublin	Ireland	\N	+353 01 6792424	\N	hughoreilly@apple.ie	3
47	Lucas	Mancini	\N	Via Degli Scipioni, 43	Rome	RM	Italy	00192	+39 06 39733434	\N	lucas.mancini@yahoo.it	5
48	Johannes	Van der Berg	\N	Lijnbaansgracht 120bg	Amsterdam	VV	Netherlands	1016	+31 020 6223130	\N	johavanderberg@yahoo.nl	5
49	Stanislaw	W�jcik	\N	Ordynacka 10	Warsaw	\N	Poland	00-358	+48 22 828 37 39	\N	stanislaw.w�jcik@wp.pl	4
50	Enrique	Mu�oz	\N	C/ San Bernardo 85	Madrid	\N	Spain	28015	+34 914 454 454	\N	enrique_munoz@yahoo.es	5
51	Joakim	Johansson	\N	Celsiusg. 9	Stockholm	\N	Sweden	11230	+46 08-651 52 52	\N	joakim.johansson@yahoo.se	5
52	Emma	Jones	\N	202 Hoxton Street	London	\N	United Kingdom	N1 5LH	+44 020 7707 0707	\N	emma_jones@hotmail.com	3
53	Phil	Hughes	\N	113 Lupus St	London	\N	United Kingdom	SW1V 3EN	+44 020 7976 5722	\N	phil.hughes@gmail.com	3
54	Steve	Murray	\N	110 Raeburn Pl	Edinburgh	\N	United Kingdom	EH4 1HH	+44 0131 315 3300	\N	steve.murray@yahoo.uk	5
55	Mark	Taylor	\N	421 Bourke Street	Sidney	NSW	Australia	2010	+61 (02) 9332 3633	\N	mark.taylor@yahoo.au	4
56	Diego	Guti�rrez	\N	307 Macacha G�emes	Buenos Aires	\N	Argentina	1106	+54 (0)11 4311 4333	\N	diego.gutierrez@yahoo.ar	4
57	Luis	Rojas	\N	Calle Lira, 198	Santiago	\N	Chile	\N	+56 (0)2 635 4444	\N	luisrojas@yahoo.cl	5
58	Manoj	Pareek	\N	12,Community Centre	Delhi	\N	India	110017	+91 0124 39883988	\N	manoj.pareek@rediff.com	3
59	Puja	Srivastava	\N	3,Raj Bhavan Road	Bangalore	\N	India	560001	+91 080 22289999	\N	puja_srivastava@yahoo.in	3
\.


--
-- Data for Name: Employee; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public."Employee" ("EmployeeId", "LastName", "FirstName", "Title", "ReportsTo", "BirthDate", "HireDate", "Address", "City", "State", "Country", "PostalCode", "Phone", "Fax", "Email") FROM stdin;
1	Adams	Andrew	General Manager	\N	1962-02-18 00:00:00	2002-08-14 00:00:00	11120 Jasper Ave NW	Edmonton	AB	Canada	T5K 2N1	+1 (780) 428-9482	+1 (780) 428-3457	andrew@chinookcorp.com
2	Edwards	Nancy	Sales Manager	1	1958-12-08 00:00:00	2002-05-01 00:00:00	825 8 Ave SW	Calgary	AB	Canada	T2P 2T3	+1 (403) 262-3443	+1 (403) 262-3322	nancy@chinookcorp.com
3	Peacock	Jane	Sales Support Agent	2	1973-08-29 00:00:00	2002-04-01 00:00:00	1111 6 Ave SW	Calgary	AB	Canada	T2P 5M5	+1 (403) 262-3443	+1 (403) 262-6712	jane@chinookcorp.com
4	Park	Margaret	Sales Support Agent	2	1947-09-19 00:00:00	2003-05-03 00:00:00	683 10 Street SW	Calgary	AB	Canada	T2P 5G3	+1 (403) 263-4423	+1 (403) 263-4289	margaret@chinookcorp.com
5	Johnson	Steve	Sales Support Agent	2	1965-03-03 00:00:00	2003-10-17 00:00:00	7727B 41 Ave	Calgary	AB	Canada	T3B 1Y7	1 (780) 836-9987	1 (780) 836-9543	steve@chinookcorp.com
6	Mitchell	Michael	IT Manager	1	1973-07-01 00:00:00	2003-10-17 00:00:00	5827 Bowness Road NW	Calgary	AB	Canada	T3B 0C5	+1 (403) 246-9887	+1 (403) 246-9899	michael@chinookcorp.com
7	King	Robert	IT Staff	6	1970-05-29 00:00:00	2004-01-02 00:00:00	590 Columbia Boulevard West	Lethbridge	AB	Canada	T1K 5N8	+1 (403) 456-9986	+1 (403) 456-8485	robert@chinookcorp.com
8	Callahan	Laura	IT Staff	6	1968-01-09 00:00:00	2004-03-04 00:00:00	923 7 ST NW	Lethbridge	AB	Canada	T1H 1Y8	+1 (403) 467-3351	+1 (403) 467-8772	laura@chinookcorp.com
\.


--
-- Data for Name: Genre; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public."Genre" ("GenreId", "Name") FROM stdin;
1	Rock
2	Jazz
3	Metal
4	Alternative & Punk
5	Rock And Roll
6	Blues
7	Latin
8	Reggae
9	Pop
10	Soundtrack
11	Bossa Nova
12	Easy Listening
13	Heavy Metal
14	R&B/Soul
15	Electronica/Dance
16	World
17	Hip Hop/Rap
18	Science Fiction
19	TV Shows
20	Sci Fi & Fantasy
21	Drama
22	Comedy
23	Alternative
24	Classical
25	Opera
\.


--
-- Data for Name: Invoice; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public."Invoice" ("InvoiceId", "CustomerId", "InvoiceDate", "BillingAddress", "BillingCity", "BillingState", "BillingCountry", "BillingPostalCode", "Total") FROM stdin;
1	2	2009-01-01 00:00:00	Theodor-Heuss-Stra�e 34	Stuttgart	\N	Germany	70174	1.98
2	4	2009-01-02 00:00:00	Ullev�lsveien 14	Oslo	\N	Norway	0171	3.96
3	8	2009-01-03 00:00:00	Gr�trystraat 63	Brussels	\N	Belgium	1000	5.94
4	14	2009-01-06 00:00:00	8210 111 ST NW	Edmonton	AB	Canada	T6G 2C7	8.91
5	23	2009-01-11 00:00:00	69 Salem Street	Boston	MA	USA	2113	13.86
108	47	2010-04-13 00:00:00	Via Degli Scipioni, 43	Rome	RM	Italy	00192	5.94
109	53	2010-04-16 00:00:00	113 Lupus St	London	\N	United Kingdom	SW1V 3EN	8.91
110	3	2010-04-21 00:00:00	1498 rue B�langer	Montr�al	QC	Canada	H2G 1A7	13.86
214	33	2011-07-25 00:00:00	5112 48 Street	Yellowknife	NT	Canada	X1A 1N6	8.91
215	42	2011-07-30 00:00:00	9, Place Louis Barthou	Bordeaux	\N	France	33000	13.86
216	56	2011-08-07 00:00:00	307 Macacha G�emes	Buenos Aires	\N	Argentina	1106	0.99
217	57	2011-08-20 00:00:00	Calle Lira, 198	Santiago	\N	Chile	\N	1.98
218	59	2011-08-20 00:00:00	3,Raj Bhavan Road	Bangalore	\N	India	560001	1.98
219	2	2011-08-21 00:00:00	Theodor-Heuss-Stra�e 34	Stuttgart	\N	Germany	70174	3.96
319	13	2012-11-01 00:00:00	Qe 7 Bloco G	Bras�lia	DF	Brazil	71020-677	8.91
320	22	2012-11-06 00:00:00	120 S Orange Ave	Orlando	FL	USA	32801	13.86
321	36	2012-11-14 00:00:00	Tauentzienstra�e 8	Berlin	\N	Germany	10789	0.99
322	37	2012-11-27 00:00:00	Berger Stra�e 10	Frankfurt	\N	Germany	60316	1.98
323	39	2012-11-27 00:00:00	4, Rue Milton	Paris	\N	France	75009	1.98
324	41	2012-11-28 00:00:00	11, Place Bellecour	Lyon	\N	France	69002	3.96
325	45	2012-11-29 00:00:00	Erzs�bet krt. 58.	Budapest	\N	Hungary	H-1073	5.94
\.


--
-- Data for Name: InvoiceLine; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public."InvoiceLine" ("InvoiceLineId", "InvoiceId", "TrackId", "UnitPrice", "Quantity") FROM stdin;
1	1	2	0.99	1
2	1	4	0.99	1
3	2	6	0.99	1
4	2	8	0.99	1
5	2	10	0.99	1
6	2	12	0.99	1
7	3	16	0.99	1
8	3	20	0.99	1
9	3	24	0.99	1
10	3	28	0.99	1
11	3	32	0.99	1
12	3	36	0.99	1
13	4	42	0.99	1
14	4	48	0.99	1
15	4	54	0.99	1
16	4	60	0.99	1
17	4	66	0.99	1
18	4	72	0.99	1
19	4	78	0.99	1
20	4	84	0.99	1
21	4	90	0.99	1
22	5	99	0.99	1
23	5	108	0.99	1
24	5	117	0.99	1
25	5	126	0.99	1
26	5	135	0.99	1
27	5	144	0.99	1
28	5	153	0.99	1
29	5	162	0.99	1
30	5	171	0.99	1
31	5	180	0.99	1
32	5	189	0.99	1
33	5	198	0.99	1
579	108	1	0.99	1
580	108	5	0.99	1
581	108	9	0.99	1
582	108	13	0.99	1
583	109	19	0.99	1
584	109	25	0.99	1
585	109	31	0.99	1
586	109	37	0.99	1
587	109	43	0.99	1
588	109	49	0.99	1
589	109	55	0.99	1
590	109	61	0.99	1
591	109	67	0.99	1
592	110	76	0.99	1
593	110	85	0.99	1
594	110	94	0.99	1
595	110	103	0.99	1
596	110	112	0.99	1
597	110	121	0.99	1
598	110	130	0.99	1
599	110	139	0.99	1
600	110	148	0.99	1
601	110	157	0.99	1
602	110	166	0.99	1
603	110	175	0.99	1
604	110	184	0.99	1
605	110	193	0.99	1
1154	214	2	0.99	1
1155	214	8	0.99	1
1156	214	14	0.99	1
1157	214	20	0.99	1
1158	214	26	0.99	1
1159	214	32	0.99	1
1160	214	38	0.99	1
1161	214	44	0.99	1
1162	215	53	0.99	1
1163	215	62	0.99	1
1164	215	71	0.99	1
1165	215	80	0.99	1
1166	215	89	0.99	1
1167	215	98	0.99	1
1168	215	107	0.99	1
1169	215	116	0.99	1
1170	215	125	0.99	1
1171	215	134	0.99	1
1172	215	143	0.99	1
1173	215	152	0.99	1
1174	215	161	0.99	1
1175	215	170	0.99	1
1176	216	184	0.99	1
1177	217	185	0.99	1
1178	217	186	0.99	1
1179	218	188	0.99	1
1180	218	190	0.99	1
1181	219	192	0.99	1
1182	219	194	0.99	1
1183	219	196	0.99	1
1184	219	198	0.99	1
1728	319	3	0.99	1
1729	319	9	0.99	1
1730	319	15	0.99	1
1731	319	21	0.99	1
1732	320	30	0.99	1
1733	320	39	0.99	1
1734	320	48	0.99	1
1735	320	57	0.99	1
1736	320	66	0.99	1
1737	320	75	0.99	1
1738	320	84	0.99	1
1739	320	93	0.99	1
1740	320	102	0.99	1
1741	320	111	0.99	1
1742	320	120	0.99	1
1743	320	129	0.99	1
1744	320	138	0.99	1
1745	320	147	0.99	1
1746	321	161	0.99	1
1747	322	162	0.99	1
1748	322	163	0.99	1
1749	323	165	0.99	1
1750	323	167	0.99	1
1751	324	169	0.99	1
1752	324	171	0.99	1
1753	324	173	0.99	1
1754	324	175	0.99	1
1755	325	179	0.99	1
1756	325	183	0.99	1
1757	325	187	0.99	1
1758	325	191	0.99	1
1759	325	195	0.99	1
1760	325	199	0.99	1
\.


--
-- Data for Name: MediaType; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public."MediaType" ("MediaTypeId", "Name") FROM stdin;
1	MPEG audio file
2	Protected AAC audio file
3	Protected MPEG-4 video file
4	Purchased AAC audio file
5	AAC audio file
\.


--
-- Data for Name: Playlist; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public."Playlist" ("PlaylistId", "Name") FROM stdin;
1	Music
2	Movies
3	TV Shows
4	Audiobooks
5	90�s Music
6	Audiobooks
7	Movies
8	Music
9	Music Videos
10	TV Shows
11	Brazilian Music
12	Classical
13	Classical 101 - Deep Cuts
14	Classical 101 - Next Steps
15	Classical 101 - The Basics
16	Grunge
17	Heavy Metal Classic
18	On-The-Go 1
\.


--
-- Data for Name: PlaylistTrack; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public."PlaylistTrack" ("PlaylistId", "TrackId") FROM stdin;
1	99
1	100
1	101
1	102
1	103
1	104
1	105
1	106
1	107
1	108
1	109
1	110
1	166
1	167
1	168
1	169
1	170
1	171
1	172
1	173
1	174
1	175
1	176
1	177
1	178
1	179
1	180
1	181
1	182
1	194
1	195
1	196
1	197
1	198
1	199
1	200
1	63
1	64
1	65
1	66
1	67
1	68
1	69
1	70
1	71
1	72
1	73
1	74
1	75
1	76
1	123
1	124
1	125
1	126
1	127
1	128
1	129
1	130
1	77
1	78
1	79
1	80
1	81
1	82
1	83
1	84
1	131
1	132
1	133
1	134
1	135
1	136
1	137
1	138
1	139
1	140
1	141
1	142
1	143
1	144
1	145
1	146
1	147
1	148
1	149
1	150
1	151
1	152
1	153
1	154
1	155
1	156
1	157
1	158
1	159
1	160
1	161
1	162
1	163
1	164
1	165
1	183
1	184
1	185
1	186
1	187
1	188
1	189
1	190
1	191
1	192
1	193
1	1
1	6
1	7
1	8
1	9
1	10
1	11
1	12
1	13
1	14
1	15
1	16
1	17
1	18
1	19
1	20
1	21
1	22
1	2
1	3
1	4
1	5
1	23
1	24
1	25
1	26
1	27
1	28
1	29
1	30
1	31
1	32
1	33
1	34
1	35
1	36
1	37
1	38
1	39
1	40
1	41
1	42
1	43
1	44
1	45
1	46
1	47
1	48
1	49
1	50
1	51
1	52
1	53
1	54
1	55
1	56
1	57
1	58
1	59
1	60
1	61
1	62
1	85
1	86
1	87
1	88
1	89
1	90
1	91
1	92
1	93
1	94
1	95
1	96
1	97
1	98
1	111
1	112
1	113
1	114
1	115
1	116
1	117
1	118
1	119
1	120
1	121
1	122
5	51
5	52
5	53
5	54
5	55
5	56
5	57
5	58
5	59
5	60
5	61
5	62
5	166
5	167
5	168
5	169
5	170
5	171
5	172
5	173
5	174
5	175
5	176
5	177
5	178
5	179
5	180
5	181
5	182
5	23
5	24
5	25
5	26
5	27
5	28
5	29
5	30
5	31
5	32
5	33
5	34
5	35
5	36
5	37
5	111
5	112
5	113
5	114
5	115
5	116
5	117
5	118
5	119
5	120
5	121
5	122
5	3
5	4
5	5
5	38
5	39
5	40
5	41
5	42
5	43
5	44
5	45
5	46
5	47
5	48
5	49
5	50
5	77
5	78
5	79
5	80
5	81
5	82
5	83
5	84
5	183
5	184
5	185
5	186
5	187
5	188
5	189
5	190
5	191
5	192
5	193
8	1
8	6
8	7
8	8
8	9
8	10
8	11
8	12
8	13
8	14
8	15
8	16
8	17
8	18
8	19
8	20
8	21
8	22
8	2
8	3
8	4
8	5
8	23
8	24
8	25
8	26
8	27
8	28
8	29
8	30
8	31
8	32
8	33
8	34
8	35
8	36
8	37
8	38
8	39
8	40
8	41
8	42
8	43
8	44
8	45
8	46
8	47
8	48
8	49
8	50
8	51
8	52
8	53
8	54
8	55
8	56
8	57
8	58
8	59
8	60
8	61
8	62
8	63
8	64
8	65
8	66
8	67
8	68
8	69
8	70
8	71
8	72
8	73
8	74
8	75
8	76
8	77
8	78
8	79
8	80
8	81
8	82
8	83
8	84
8	85
8	86
8	87
8	88
8	89
8	90
8	91
8	92
8	93
8	94
8	95
8	96
8	97
8	98
8	99
8	100
8	101
8	102
8	103
8	104
8	105
8	106
8	107
8	108
8	109
8	110
8	111
8	112
8	113
8	114
8	115
8	116
8	117
8	118
8	119
8	120
8	121
8	122
8	123
8	124
8	125
8	126
8	127
8	128
8	129
8	130
8	131
8	132
8	133
8	134
8	135
8	136
8	137
8	138
8	139
8	140
8	141
8	142
8	143
8	144
8	145
8	146
8	147
8	148
8	149
8	150
8	151
8	152
8	153
8	154
8	155
8	156
8	157
8	158
8	159
8	160
8	161
8	162
8	163
8	164
8	165
8	166
8	167
8	168
8	169
8	170
8	171
8	172
8	173
8	174
8	175
8	176
8	177
8	178
8	179
8	180
8	181
8	182
8	183
8	184
8	185
8	186
8	187
8	188
8	189
8	190
8	191
8	192
8	193
8	194
8	195
8	196
8	197
8	198
8	199
8	200
16	52
17	1
17	2
17	3
17	4
17	5
17	152
17	160
\.


--
-- Data for Name: Track; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public."Track" ("TrackId", "Name", "AlbumId", "MediaTypeId", "GenreId", "Composer", "Milliseconds", "Bytes", "UnitPrice") FROM stdin;
1	For Those About To Rock (We Salute You)	1	1	1	Angus Young, Malcolm Young, Brian Johnson	343719	11170334	0.99
2	Balls to the Wall	2	2	1	\N	342562	5510424	0.99
3	Fast As a Shark	3	2	1	F. Baltes, S. Kaufman, U. Dirkscneider & W. Hoffman	230619	3990994	0.99
4	Restless and Wild	3	2	1	F. Baltes, R.A. Smith-Diesel, S. Kaufman, U. Dirkscneider & W. Hoffman	252051	4331779	0.99
5	Princess of the Dawn	3	2	1	Deaffy & R.A. Smith-Diesel	375418	6290521	0.99
6	Put The Finger On You	1	1	1	Angus Young, Malcolm Young, Brian Johnson	205662	6713451	0.99
7	Let's Get It Up	1	1	1	Angus Young, Malcolm Young, Brian Johnson	233926	7636561	0.99
8	Inject The Venom	1	1	1	Angus Young, Malcolm Young, Brian Johnson	210834	6852860	0.99
9	Snowballed	1	1	1	Angus Young, Malcolm Young, Brian Johnson	203102	6599424	0.99
10	Evil Walks	1	1	1	Angus Young, Malcolm Young, Brian Johnson	263497	8611245	0.99
11	C.O.D.	1	1	1	Angus Young, Malcolm Young, Brian Johnson	199836	6566314	0.99
12	Breaking The Rules	1	1	1	Angus Young, Malcolm Young, Brian Johnson	263288	8596840	0.99
13	Night Of The Long Knives	1	1	1	Angus Young, Malcolm Young, Brian Johnson	205688	6706347	0.99
14	Spellbound	1	1	1	Angus Young, Malcolm Young, Brian Johnson	270863	8817038	0.99
15	Go Down	4	1	1	AC/DC	331180	10847611	0.99
16	Dog Eat Dog	4	1	1	AC/DC	215196	7032162	0.99
17	Let There Be Rock	4	1	1	AC/DC	366654	12021261	0.99
18	Bad Boy Boogie	4	1	1	AC/DC	267728	8776140	0.99
19	Problem Child	4	1	1	AC/DC	325041	10617116	0.99
20	Overdose	4	1	1	AC/DC	369319	12066294	0.99
21	Hell Ain't A Bad Place To Be	4	1	1	AC/DC	254380	8331286	0.99
22	Whole Lotta Rosie	4	1	1	AC/DC	323761	10547154	0.99
23	Walk On Water	5	1	1	Steven Tyler, Joe Perry, Jack Blades, Tommy Shaw	295680	9719579	0.99
24	Love In An Elevator	5	1	1	Steven Tyler, Joe Perry	321828	10552051	0.99
25	Rag Doll	5	1	1	Steven Tyler, Joe Perry, Jim Vallance, Holly Knight	264698	8675345	0.99
26	What It Takes	5	1	1	Steven Tyler, Joe Perry, Desmond Child	310622	10144730	0.99
27	Dude (Looks Like A Lady)	5	1	1	Steven Tyler, Joe Perry, Desmond Child	264855	8679940	0.99
28	Janie's Got A Gun	5	1	1	Steven Tyler, Tom Hamilton	330736	10869391	0.99
29	Cryin'	5	1	1	Steven Tyler, Joe Perry, Taylor Rhodes	309263	10056995	0.99
30	Amazing	5	1	1	Steven Tyler, Richie Supa	356519	11616195	0.99
31	Blind Man	5	1	1	Steven Tyler, Joe Perry, Taylor Rhodes	240718	7877453	0.99
32	Deuces Are Wild	5	1	1	Steven Tyler, Jim Vallance	215875	7074167	0.99
33	The Other Side	5	1	1	Steven Tyler, Jim Vallance	244375	7983270	0.99
34	Crazy	5	1	1	Steven Tyler, Joe Perry, Desmond Child	316656	10402398	0.99
35	Eat The Rich	5	1	1	Steven Tyler, Joe Perry, Jim Vallance	251036	8262039	0.99
36	Angel	5	1	1	Steven Tyler, Desmond Child	307617	9989331	0.99
37	Livin' On The Edge	5	1	1	Steven Tyler, Joe Perry, Mark Hudson	381231	12374569	0.99
38	All I Really Want	6	1	1	Alanis Morissette & Glenn Ballard	284891	9375567	0.99
39	You Oughta Know	6	1	1	Alanis Morissette & Glenn Ballard	249234	8196916	0.99
40	Perfect	6	1	1	Alanis Morissette & Glenn Ballard	188133	6145404	0.99
41	Hand In My Pocket	6	1	1	Alanis Morissette & Glenn Ballard	221570	7224246	0.99
42	Right Through You	6	1	1	Alanis Morissette & Glenn Ballard	176117	5793082	0.99
43	Forgiven	6	1	1	Alanis Morissette & Glenn Ballard	300355	9753256	0.99
44	You Learn	6	1	1	Alanis Morissette & Glenn Ballard	239699	7824837	0.99
45	Head Over Feet	6	1	1	Alanis Morissette & Glenn Ballard	267493	8758008	0.99
46	Mary Jane	6	1	1	Alanis Morissette & Glenn Ballard	280607	9163588	0.99
47	Ironic	6	1	1	Alanis Morissette & Glenn Ballard	229825	7598866	0.99
48	Not The Doctor	6	1	1	Alanis Morissette & Glenn Ballard	227631	7604601	0.99
49	Wake Up	6	1	1	Alanis Morissette & Glenn Ballard	293485	9703359	0.99
50	You Oughta Know (Alternate)	6	1	1	Alanis Morissette & Glenn Ballard	491885	16008629	0.99
51	We Die Young	7	1	1	Jerry Cantrell	152084	4925362	0.99
52	Man In The Box	7	1	1	Jerry Cantrell, Layne Staley	286641	9310272	0.99
53	Sea Of Sorrow	7	1	1	Jerry Cantrell	349831	11316328	0.99
54	Bleed The Freak	7	1	1	Jerry Cantrell	241946	7847716	0.99
55	I Can't Remember	7	1	1	Jerry Cantrell, Layne Staley	222955	7302550	0.99
56	Love, Hate, Love	7	1	1	Jerry Cantrell, Layne Staley	387134	12575396	0.99
57	It Ain't Like That	7	1	1	Jerry Cantrell, Michael Starr, Sean Kinney	277577	8993793	0.99
58	Sunshine	7	1	1	Jerry Cantrell	284969	9216057	0.99
59	Put You Down	7	1	1	Jerry Cantrell	196231	6420530	0.99
60	Confusion	7	1	1	Jerry Cantrell, Michael Starr, Layne Staley	344163	11183647	0.99
61	I Know Somethin (Bout You)	7	1	1	Jerry Cantrell	261955	8497788	0.99
62	Real Thing	7	1	1	Jerry Cantrell, Layne Staley	243879	7937731	0.99
63	Desafinado	8	1	2	\N	185338	5990473	0.99
64	Garota De Ipanema	8	1	2	\N	285048	9348428	0.99
65	Samba De Uma Nota S� (One Note Samba)	8	1	2	\N	137273	4535401	0.99
66	Por Causa De Voc�	8	1	2	\N	169900	5536496	0.99
67	Ligia	8	1	2	\N	251977	8226934	0.99
68	Fotografia	8	1	2	\N	129227	4198774	0.99
69	Dindi (Dindi)	8	1	2	\N	253178	8149148	0.99
70	Se Todos Fossem Iguais A Voc� (Instrumental)	8	1	2	\N	134948	4393377	0.99
71	Falando De Amor	8	1	2	\N	219663	7121735	0.99
72	Angela	8	1	2	\N	169508	5574957	0.99
73	Corcovado (Quiet Nights Of Quiet Stars)	8	1	2	\N	205662	6687994	0.99
74	Outra Vez	8	1	2	\N	126511	4110053	0.99
75	O Boto (B�to)	8	1	2	\N	366837	12089673	0.99
76	Canta, Canta Mais	8	1	2	\N	271856	8719426	0.99
77	Enter Sandman	9	1	3	Apocalyptica	221701	7286305	0.99
78	Master Of Puppets	9	1	3	Apocalyptica	436453	14375310	0.99
79	Harvester Of Sorrow	9	1	3	Apocalyptica	374543	12372536	0.99
80	The Unforgiven	9	1	3	Apocalyptica	322925	10422447	0.99
81	Sad But True	9	1	3	Apocalyptica	288208	9405526	0.99
82	Creeping Death	9	1	3	Apocalyptica	308035	10110980	0.99
83	Wherever I May Roam	9	1	3	Apocalyptica	369345	12033110	0.99
84	Welcome Home (Sanitarium)	9	1	3	Apocalyptica	350197	11406431	0.99
85	Cochise	10	1	1	Audioslave/Chris Cornell	222380	5339931	0.99
86	Show Me How to Live	10	1	1	Audioslave/Chris Cornell	277890	6672176	0.99
87	Gasoline	10	1	1	Audioslave/Chris Cornell	279457	6709793	0.99
88	What You Are	10	1	1	Audioslave/Chris Cornell	249391	5988186	0.99
89	Like a Stone	10	1	1	Audioslave/Chris Cornell	294034	7059624	0.99
90	Set It Off	10	1	1	Audioslave/Chris Cornell	263262	6321091	0.99
91	Shadow on the Sun	10	1	1	Audioslave/Chris Cornell	343457	8245793	0.99
92	I am the Highway	10	1	1	Audioslave/Chris Cornell	334942	8041411	0.99
93	Exploder	10	1	1	Audioslave/Chris Cornell	206053	4948095	0.99
94	Hypnotize	10	1	1	Audioslave/Chris Cornell	206628	4961887	0.99
95	Bring'em Back Alive	10	1	1	Audioslave/Chris Cornell	329534	7911634	0.99
96	Light My Way	10	1	1	Audioslave/Chris Cornell	303595	7289084	0.99
97	Getaway Car	10	1	1	Audioslave/Chris Cornell	299598	7193162	0.99
98	The Last Remaining Light	10	1	1	Audioslave/Chris Cornell	317492	7622615	0.99
99	Your Time Has Come	11	1	4	Cornell, Commerford, Morello, Wilk	255529	8273592	0.99
100	Out Of Exile	11	1	4	Cornell, Commerford, Morello, Wilk	291291	9506571	0.99
101	Be Yourself	11	1	4	Cornell, Commerford, Morello, Wilk	279484	9106160	0.99
102	Doesn't Remind Me	11	1	4	Cornell, Commerford, Morello, Wilk	255869	8357387	0.99
103	Drown Me Slowly	11	1	4	Cornell, Commerford, Morello, Wilk	233691	7609178	0.99
104	Heaven's Dead	11	1	4	Cornell, Commerford, Morello, Wilk	276688	9006158	0.99
105	The Worm	11	1	4	Cornell, Commerford, Morello, Wilk	237714	7710800	0.99
106	Man Or Animal	11	1	4	Cornell, Commerford, Morello, Wilk	233195	7542942	0.99
107	Yesterday To Tomorrow	11	1	4	Cornell, Commerford, Morello, Wilk	273763	8944205	0.99
108	Dandelion	11	1	4	Cornell, Commerford, Morello, Wilk	278125	9003592	0.99
109	#1 Zero	11	1	4	Cornell, Commerford, Morello, Wilk	299102	9731988	0.99
110	The Curse	11	1	4	Cornell, Commerford, Morello, Wilk	309786	10029406	0.99
111	Money	12	1	5	Berry Gordy, Jr./Janie Bradford	147591	2365897	0.99
112	Long Tall Sally	12	1	5	Enotris Johnson/Little Richard/Robert "Bumps" Blackwell	106396	1707084	0.99
113	Bad Boy	12	1	5	Larry Williams	116088	1862126	0.99
114	Twist And Shout	12	1	5	Bert Russell/Phil Medley	161123	2582553	0.99
115	Please Mr. Postman	12	1	5	Brian Holland/Freddie Gorman/Georgia Dobbins/Robert Bateman/William Garrett	137639	2206986	0.99
116	C'Mon Everybody	12	1	5	Eddie Cochran/Jerry Capehart	140199	2247846	0.99
117	Rock 'N' Roll Music	12	1	5	Chuck Berry	141923	2276788	0.99
118	Slow Down	12	1	5	Larry Williams	163265	2616981	0.99
119	Roadrunner	12	1	5	Bo Diddley	143595	2301989	0.99
120	Carol	12	1	5	Chuck Berry	143830	2306019	0.99
121	Good Golly Miss Molly	12	1	5	Little Richard	106266	1704918	0.99
122	20 Flight Rock	12	1	5	Ned Fairchild	107807	1299960	0.99
123	Quadrant	13	1	2	Billy Cobham	261851	8538199	0.99
124	Snoopy's search-Red baron	13	1	2	Billy Cobham	456071	15075616	0.99
125	Spanish moss-"A sound portrait"-Spanish moss	13	1	2	Billy Cobham	248084	8217867	0.99
126	Moon germs	13	1	2	Billy Cobham	294060	9714812	0.99
127	Stratus	13	1	2	Billy Cobham	582086	19115680	0.99
128	The pleasant pheasant	13	1	2	Billy Cobham	318066	10630578	0.99
129	Solo-Panhandler	13	1	2	Billy Cobham	246151	8230661	0.99
130	Do what cha wanna	13	1	2	George Duke	274155	9018565	0.99
131	Intro/ Low Down	14	1	3	\N	323683	10642901	0.99
132	13 Years Of Grief	14	1	3	\N	246987	8137421	0.99
133	Stronger Than Death	14	1	3	\N	300747	9869647	0.99
134	All For You	14	1	3	\N	235833	7726948	0.99
135	Super Terrorizer	14	1	3	\N	319373	10513905	0.99
136	Phoney Smile Fake Hellos	14	1	3	\N	273606	9011701	0.99
137	Lost My Better Half	14	1	3	\N	284081	9355309	0.99
138	Bored To Tears	14	1	3	\N	247327	8130090	0.99
139	A.N.D.R.O.T.A.Z.	14	1	3	\N	266266	8574746	0.99
140	Born To Booze	14	1	3	\N	282122	9257358	0.99
141	World Of Trouble	14	1	3	\N	359157	11820932	0.99
142	No More Tears	14	1	3	\N	555075	18041629	0.99
143	The Begining... At Last	14	1	3	\N	365662	11965109	0.99
144	Heart Of Gold	15	1	3	\N	194873	6417460	0.99
145	Snowblind	15	1	3	\N	420022	13842549	0.99
146	Like A Bird	15	1	3	\N	276532	9115657	0.99
147	Blood In The Wall	15	1	3	\N	284368	9359475	0.99
148	The Beginning...At Last	15	1	3	\N	271960	8975814	0.99
149	Black Sabbath	16	1	3	\N	382066	12440200	0.99
150	The Wizard	16	1	3	\N	264829	8646737	0.99
151	Behind The Wall Of Sleep	16	1	3	\N	217573	7169049	0.99
152	N.I.B.	16	1	3	\N	368770	12029390	0.99
153	Evil Woman	16	1	3	\N	204930	6655170	0.99
154	Sleeping Village	16	1	3	\N	644571	21128525	0.99
155	Warning	16	1	3	\N	212062	6893363	0.99
156	Wheels Of Confusion / The Straightener	17	1	3	Tony Iommi, Bill Ward, Geezer Butler, Ozzy Osbourne	494524	16065830	0.99
157	Tomorrow's Dream	17	1	3	Tony Iommi, Bill Ward, Geezer Butler, Ozzy Osbourne	192496	6252071	0.99
158	Changes	17	1	3	Tony Iommi, Bill Ward, Geezer Butler, Ozzy Osbourne	286275	9175517	0.99
159	FX	17	1	3	Tony Iommi, Bill Ward, Geezer Butler, Ozzy Osbourne	103157	3331776	0.99
160	Supernaut	17	1	3	Tony Iommi, Bill Ward, Geezer Butler, Ozzy Osbourne	285779	9245971	0.99
161	Snowblind	17	1	3	Tony Iommi, Bill Ward, Geezer Butler, Ozzy Osbourne	331676	10813386	0.99
162	Cornucopia	17	1	3	Tony Iommi, Bill Ward, Geezer Butler, Ozzy Osbourne	234814	7653880	0.99
163	Laguna Sunrise	17	1	3	Tony Iommi, Bill Ward, Geezer Butler, Ozzy Osbourne	173087	5671374	0.99
164	St. Vitus Dance	17	1	3	Tony Iommi, Bill Ward, Geezer Butler, Ozzy Osbourne	149655	4884969	0.99
165	Under The Sun/Every Day Comes and Goes	17	1	3	Tony Iommi, Bill Ward, Geezer Butler, Ozzy Osbourne	350458	11360486	0.99
166	Smoked Pork	18	1	4	\N	47333	1549074	0.99
167	Body Count's In The House	18	1	4	\N	204251	6715413	0.99
168	Now Sports	18	1	4	\N	4884	161266	0.99
169	Body Count	18	1	4	\N	317936	10489139	0.99
170	A Statistic	18	1	4	\N	6373	211997	0.99
171	Bowels Of The Devil	18	1	4	\N	223216	7324125	0.99
172	The Real Problem	18	1	4	\N	11650	387360	0.99
173	KKK Bitch	18	1	4	\N	173008	5709631	0.99
174	D Note	18	1	4	\N	95738	3067064	0.99
175	Voodoo	18	1	4	\N	300721	9875962	0.99
176	The Winner Loses	18	1	4	\N	392254	12843821	0.99
177	There Goes The Neighborhood	18	1	4	\N	350171	11443471	0.99
178	Oprah	18	1	4	\N	6635	224313	0.99
179	Evil Dick	18	1	4	\N	239020	7828873	0.99
180	Body Count Anthem	18	1	4	\N	166426	5463690	0.99
181	Momma's Gotta Die Tonight	18	1	4	\N	371539	12122946	0.99
182	Freedom Of Speech	18	1	4	\N	281234	9337917	0.99
183	King In Crimson	19	1	3	Roy Z	283167	9218499	0.99
184	Chemical Wedding	19	1	3	Roy Z	246177	8022764	0.99
185	The Tower	19	1	3	Roy Z	285257	9435693	0.99
186	Killing Floor	19	1	3	Adrian Smith	269557	8854240	0.99
187	Book Of Thel	19	1	3	Eddie Casillas/Roy Z	494393	16034404	0.99
188	Gates Of Urizen	19	1	3	Roy Z	265351	8627004	0.99
189	Jerusalem	19	1	3	Roy Z	402390	13194463	0.99
190	Trupets Of Jericho	19	1	3	Roy Z	359131	11820908	0.99
191	Machine Men	19	1	3	Adrian Smith	341655	11138147	0.99
192	The Alchemist	19	1	3	Roy Z	509413	16545657	0.99
193	Realword	19	1	3	Roy Z	237531	7802095	0.99
194	First Time I Met The Blues	20	1	6	Eurreal Montgomery	140434	4604995	0.99
195	Let Me Love You Baby	20	1	6	Willie Dixon	175386	5716994	0.99
196	Stone Crazy	20	1	6	Buddy Guy	433397	14184984	0.99
197	Pretty Baby	20	1	6	Willie Dixon	237662	7848282	0.99
198	When My Left Eye Jumps	20	1	6	Al Perkins/Willie Dixon	235311	7685363	0.99
199	Leave My Girl Alone	20	1	6	Buddy Guy	204721	6859518	0.99
200	She Suits Me To A Tee	20	1	6	Buddy Guy	136803	4456321	0.99
\.


--
-- Name: Album PK_Album; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Album"
    ADD CONSTRAINT "PK_Album" PRIMARY KEY ("AlbumId");


--
-- Name: Artist PK_Artist; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Artist"
    ADD CONSTRAINT "PK_Artist" PRIMARY KEY ("ArtistId");


--
-- Name: Customer PK_Customer; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Customer"
    ADD CONSTRAINT "PK_Customer" PRIMARY KEY ("CustomerId");


--
-- Name: Employee PK_Employee; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Employee"
    ADD CONSTRAINT "PK_Employee" PRIMARY KEY ("EmployeeId");


--
-- Name: Genre PK_Genre; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Genre"
    ADD CONSTRAINT "PK_Genre" PRIMARY KEY ("GenreId");


--
-- Name: Invoice PK_Invoice; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Invoice"
    ADD CONSTRAINT "PK_Invoice" PRIMARY KEY ("InvoiceId");


--
-- Name: InvoiceLine PK_InvoiceLine; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."InvoiceLine"
    ADD CONSTRAINT "PK_InvoiceLine" PRIMARY KEY ("InvoiceLineId");


--
-- Name: MediaType PK_MediaType; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."MediaType"
    ADD CONSTRAINT "PK_MediaType" PRIMARY KEY ("MediaTypeId");


--
-- Name: Playlist PK_Playlist; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Playlist"
    ADD CONSTRAINT "PK_Playlist" PRIMARY KEY ("PlaylistId");


--
-- Name: PlaylistTrack PK_PlaylistTrack; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."PlaylistTrack"
    ADD CONSTRAINT "PK_PlaylistTrack" PRIMARY KEY ("PlaylistId", "TrackId");


--
-- Name: Track PK_Track; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Track"
    ADD CONSTRAINT "PK_Track" PRIMARY KEY ("TrackId");


--
-- Name: IFK_AlbumArtistId; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "IFK_AlbumArtistId" ON public."Album" USING btree ("ArtistId");


--
-- Name: IFK_CustomerSupportRepId; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "IFK_CustomerSupportRepId" ON public."Customer" USING btree ("SupportRepId");


--
-- Name: IFK_EmployeeReportsTo; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "IFK_EmployeeReportsTo" ON public."Employee" USING btree ("ReportsTo");


--
-- Name: IFK_InvoiceCustomerId; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "IFK_InvoiceCustomerId" ON public."Invoice" USING btree ("CustomerId");


--
-- Name: IFK_InvoiceLineInvoiceId; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "IFK_InvoiceLineInvoiceId" ON public."InvoiceLine" USING btree ("InvoiceId");


--
-- Name: IFK_InvoiceLineTrackId; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "IFK_InvoiceLineTrackId" ON public."InvoiceLine" USING btree ("TrackId");


--
-- Name: IFK_PlaylistTrackTrackId; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "IFK_PlaylistTrackTrackId" ON public."PlaylistTrack" USING btree ("TrackId");


--
-- Name: IFK_TrackAlbumId; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "IFK_TrackAlbumId" ON public."Track" USING btree ("AlbumId");


--
-- Name: IFK_TrackGenreId; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "IFK_TrackGenreId" ON public."Track" USING btree ("GenreId");


--
-- Name: IFK_TrackMediaTypeId; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "IFK_TrackMediaTypeId" ON public."Track" USING btree ("MediaTypeId");


--
-- Name: Album FK_AlbumArtistId; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Album"
    ADD CONSTRAINT "FK_AlbumArtistId" FOREIGN KEY ("ArtistId") REFERENCES public."Artist"("ArtistId");


--
-- Name: Customer FK_CustomerSupportRepId; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Customer"
    ADD CONSTRAINT "FK_CustomerSupportRepId" FOREIGN KEY ("SupportRepId") REFERENCES public."Employee"("EmployeeId");


--
-- Name: Employee FK_EmployeeReportsTo; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Employee"
    ADD CONSTRAINT "FK_EmployeeReportsTo" FOREIGN KEY ("ReportsTo") REFERENCES public."Employee"("EmployeeId");


--
-- Name: Invoice FK_InvoiceCustomerId; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Invoice"
    ADD CONSTRAINT "FK_InvoiceCustomerId" FOREIGN KEY ("CustomerId") REFERENCES public."Customer"("CustomerId");


--
-- Name: InvoiceLine FK_InvoiceLineInvoiceId; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."InvoiceLine"
    ADD CONSTRAINT "FK_InvoiceLineInvoiceId" FOREIGN KEY ("InvoiceId") REFERENCES public."Invoice"("InvoiceId");


--
-- Name: InvoiceLine FK_InvoiceLineTrackId; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."InvoiceLine"
    ADD CONSTRAINT "FK_InvoiceLineTrackId" FOREIGN KEY ("TrackId") REFERENCES public."Track"("TrackId");


--
-- Name: PlaylistTrack FK_PlaylistTrackPlaylistId; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."PlaylistTrack"
    ADD CONSTRAINT "FK_PlaylistTrackPlaylistId" FOREIGN KEY ("PlaylistId") REFERENCES public."Playlist"("PlaylistId");


--
-- Name: PlaylistTrack FK_PlaylistTrackTrackId; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."PlaylistTrack"
    ADD CONSTRAINT "FK_PlaylistTrackTrackId" FOREIGN KEY ("TrackId") REFERENCES public."Track"("TrackId");


--
-- Name: Track FK_TrackAlbumId; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Track"
    ADD CONSTRAINT "FK_TrackAlbumId" FOREIGN KEY ("AlbumId") REFERENCES public."Album"("AlbumId");


--
-- Name: Track FK_TrackGenreId; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Track"
    ADD CONSTRAINT "FK_TrackGenreId" FOREIGN KEY ("GenreId") REFERENCES public."Genre"("GenreId");


--
-- Name: Track FK_TrackMediaTypeId; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public."Track"
    ADD CONSTRAINT "FK_TrackMediaTypeId" FOREIGN KEY ("MediaTypeId") REFERENCES public."MediaType"("MediaTypeId");


--
-- PostgreSQL database dump complete
--

